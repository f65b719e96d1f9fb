// Placeholder so the module exists while its owner writes it. Delete once real sources land.
