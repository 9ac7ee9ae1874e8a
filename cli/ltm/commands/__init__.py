"""The commands of `ltm`, one module per group. Each module's `register(add)` declares its
commands with `add(name, handler, help)`; a handler parses its arguments, calls the verb and
formats, and returns the exit code."""
