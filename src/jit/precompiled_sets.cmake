# The JIT kernel sets compiled when the library is built (tools/cupar_precompile): every
# algorithm with a run-time operator for the arithmetic element types. Other types (user structs,
# mixed transform types, other sort payload sizes) are compiled from source at run time, once,
# then cached on disk.
set(_types i8 i16 i32 i64 u8 u16 u32 u64 f32 f64)
set(CUPAR_PRECOMPILED_SETS "")
foreach(_t IN LISTS _types)
  list(APPEND CUPAR_PRECOMPILED_SETS
       "reduce<${_t}>"
       "scan_inclusive<${_t}>"
       "scan_exclusive<${_t}>"
       "transform_unary<${_t},${_t}>"
       "transform_binary<${_t},${_t},${_t}>"
       "merge_sort_keys<${_t}>"
       "merge_sort_pairs<${_t},s4a4>"
       "merge_sort_pairs<${_t},s8a8>"
       "histogram_even<${_t},${_t},u32>"
       "histogram_even<${_t},${_t},u64>"
       "histogram_range<${_t},${_t},u32>"
       "histogram_range<${_t},${_t},u64>")
endforeach()
