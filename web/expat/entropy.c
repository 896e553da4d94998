/* expat's hash salt for the WebAssembly build (expat_config.h names this as expat's
 * arc4random_buf): getentropy, which Emscripten serves from crypto.getRandomValues. */
#include <stddef.h>
#include <string.h>
#include <sys/random.h>
#include "expat_config.h"

void fmag_web_expat_entropy(void *buf, size_t n)
{
    unsigned char *p = buf;
    memset(buf, 0, n); /* defined bytes even where getentropy were to fail */
    while (n > 0) {    /* getentropy gives at most 256 bytes a call */
        size_t k = n < 256 ? n : 256;
        if (getentropy(p, k) != 0) return;
        p += k;
        n -= k;
    }
}
