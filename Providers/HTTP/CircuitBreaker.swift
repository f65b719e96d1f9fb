import Foundation

/// Stops calling a provider that keeps failing, and tries it again after a cool-down.
///
/// Closed: calls go through; `failureThreshold` consecutive failures open it. Open: calls fail at
/// once with ``PlacesCore/ProviderError/Kind/circuitOpen`` until `coolDown` has passed. Half-open:
/// one trial call goes through; success closes the breaker, failure opens it for another cool-down.
public actor CircuitBreaker {
    public enum State: Sendable, Equatable {
        case closed(consecutiveFailures: Int)
        case open(until: Double)
        case halfOpen
    }

    public nonisolated let failureThreshold: Int
    public nonisolated let coolDown: Double
    private let clock: any ProviderClock
    public private(set) var state: State = .closed(consecutiveFailures: 0)
    private var trialInFlight = false

    public init(failureThreshold: Int = 5, coolDown: Double = 30, clock: any ProviderClock = SystemClock()) {
        self.failureThreshold = max(1, failureThreshold)
        self.coolDown = coolDown
        self.clock = clock
    }

    /// `nil` when a call may go ahead; otherwise the seconds until the breaker lets one through.
    public func admit() -> Double? {
        switch state {
        case .closed:
            return nil
        case .open(let until):
            let now = clock.now()
            guard now >= until else { return until - now }
            state = .halfOpen
            trialInFlight = true
            return nil
        case .halfOpen:
            if trialInFlight { return coolDown }
            trialInFlight = true
            return nil
        }
    }

    public func recordSuccess() {
        state = .closed(consecutiveFailures: 0)
        trialInFlight = false
    }

    public func recordFailure() {
        trialInFlight = false
        switch state {
        case .closed(let failures):
            state = failures + 1 >= failureThreshold ? .open(until: clock.now() + coolDown)
                : .closed(consecutiveFailures: failures + 1)
        case .halfOpen, .open:
            state = .open(until: clock.now() + coolDown)
        }
    }
}
