//! Raw FFI to the system libisl. Filled in by the counting work (issue 3).
