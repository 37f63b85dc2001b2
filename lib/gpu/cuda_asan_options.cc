// The CUDA driver maps device-visible memory at fixed low addresses that
// AddressSanitizer reserves as its shadow gap, so on a machine with a GPU,
// initializing CUDA under ASan fails ("out of memory" from cudaMalloc or a
// failed context creation) unless the gap is left unprotected. Without a
// device the option changes nothing. ASAN_OPTIONS set in the environment
// still apply on top of these.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() {
  return "protect_shadow_gap=0";
}
#endif
