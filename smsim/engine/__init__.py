"""The jitted rules of Saint Malo: plain arrays in, arrays and records out; no pandas, no I/O."""
