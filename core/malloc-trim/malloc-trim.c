/*
 * trim(): asks the C allocator to give its free memory back to the system.
 *
 * glibc's free() returns memory to the system only from the top of a heap. Free blocks below
 * a block still in use stay part of the process however long they stay free; malloc_trim(0)
 * walks every arena and hands their whole free pages back (madvise(MADV_DONTNEED)).
 * Node.js exposes no way to call it, hence this module.
 *
 * Returns true when memory was released, false when there was none to release, and
 * undefined where the C library is not glibc (musl, macOS): their allocators have no
 * malloc_trim.
 */
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#if defined(__GLIBC__)
  if (napi_get_boolean(env, malloc_trim(0) == 1, &result) != napi_ok) return NULL;
#else
  if (napi_get_undefined(env, &result) != napi_ok) return NULL;
#endif
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}
