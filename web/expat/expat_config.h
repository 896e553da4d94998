/* expat's build configuration for the WebAssembly build (web/CMakeLists.txt compiles
 * Debian's expat source with it; docs/Web.md). Written here instead of running expat's
 * own configure checks under emcc, which take minutes and, for the patched Debian
 * source, produce a header its CMake path cannot compile (`#if XML_DTD == 1` needs the
 * value 1 that Debian's autotools build defines). The features are those of Debian's
 * libexpat1, so the page parses a document as the native tools do. */
#ifndef FMAG_WEB_EXPAT_CONFIG_H
#define FMAG_WEB_EXPAT_CONFIG_H

#include <stddef.h>

#define BYTEORDER 1234 /* wasm is little-endian */
#define XML_CONTEXT_BYTES 1024
#define XML_DTD 1
#define XML_NS 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TYPES_H 1

/* The hash salt's entropy: Emscripten 3.1.6 has getentropy (the browser's
 * crypto.getRandomValues) but neither of the getrandom forms expat 2.5 looks for, and the
 * page has no /dev/urandom (no file system). expat takes arc4random_buf where a platform
 * has it: web/expat/entropy.c gives it that name over getentropy. */
#define HAVE_ARC4RANDOM_BUF 1
#define arc4random_buf fmag_web_expat_entropy
void fmag_web_expat_entropy(void *buf, size_t n);

#endif
