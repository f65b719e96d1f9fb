// Written by the lead next: opens the local index (building it from the embedded data on first use)
// and answers search/details/nearby/reverse/suggest for the CLI and the server.
