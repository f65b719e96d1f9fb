import Foundation
import FuzzTargets

// One file and no top-level code: SwiftPM compiles a single-file executable as a library (-parse-as-library).
// SwiftPM links every executable with `--defsym main=<Module>_main`, so under -DFUZZING this file defines
// `PlacesFuzz_main` itself and hands control to libFuzzer's driver (`LLVMFuzzerRunDriver`), which then calls
// `LLVMFuzzerTestOneInput` for each input.

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("PlacesFuzz_main")
public func placesFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput)
}

/// The target `run.sh` chose, read once: `PLACES_FUZZ_TARGET=resp`.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PLACES_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("PLACES_FUZZ_TARGET must be one of: \(names) (got '\(name)')\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    selectedTarget.run(data)
    return 0
}
#else
/// Without libFuzzer: replays files through a target, so a saved crash reproduces in a debug build
/// (`swift run PlacesFuzz pbf crash-1234`) and under a debugger.
@main
struct ReplayFuzzInputs {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: PlacesFuzz <\(names)> <file>…\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("PlacesFuzz: cannot read \(path)\n".utf8))
                exit(1)
            }
            target.run(data)
            print("\(target.rawValue): \(path) ok")
        }
    }
}
#endif
