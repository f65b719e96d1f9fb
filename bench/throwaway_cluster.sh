# Sourced by the bench scripts that need PostgreSQL (run from the repository root): a scratch folder ($WORK), a list
# of background processes to stop ($PIDS), and a throwaway cluster started by Tests/PostgresTestCluster/cluster.sh
# (PLACES_TEST_DATABASE_URL, PLACES_TEST_CLUSTER_DIR); on exit the processes are stopped, the cluster is stopped and
# its directory and the scratch folder are removed.
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    [ -n "${PLACES_TEST_CLUSTER_DIR:-}" ] && bash Tests/PostgresTestCluster/cluster.sh stop "$PLACES_TEST_CLUSTER_DIR"
    rm -rf "$WORK"
}
trap cleanup EXIT
# A signal ends the script through that trap too (bash runs no EXIT trap when a signal kills it), so the servers
# it started never outlive it; bash takes the signal once the command in the foreground has ended.
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
# Through a file, not $(…): the started postmaster must not be able to hold the script's pipe open.
bash Tests/PostgresTestCluster/cluster.sh start >"$WORK/cluster.env" </dev/null
source "$WORK/cluster.env"
