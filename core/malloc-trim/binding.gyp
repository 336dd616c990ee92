# One Node-API module of one C file (malloc-trim.c); `npm install` builds it with node-gyp.
{
  "targets": [
    {
      "target_name": "malloc_trim",
      "sources": ["malloc-trim.c"],
      "cflags": ["-O2"]
    }
  ]
}
