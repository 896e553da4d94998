/* Strict pow(x, 5.0): the worst error of three candidate sequences over every float
 * mantissa (x in [1, 2); scaling x by 2^k scales x^5 by 2^5k exactly, so this covers
 * every x whose x^5 is normal), against pow in double. The sequences are written in
 * C with fmaf, the same operations lib/Math emits:
 *   plain chain      (x*x)*(x*x)*x                                  3 instructions
 *   first square     h = x*x, l = fma(x,x,-h), p = h*h,             8
 *   compensated      fma(p, x, ((h+h)*l)*x)
 *   fused (shipped)  as above plus c = fma(h,h,-p):                 10 (+3: overflow)
 *                    fma(p, x, fma(h+h, l, c)*x)
 *   cc -O2 -ffp-contract=off bench/math/pow5.c -lm && ./a.out */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static double ulp_error(float r, double ref)
{
    int e = ilogb(fabs(ref));
    return fabs((double)r - ref) / ldexp(1.0, (e < -126 ? -126 : e) - 23);
}

int main(void)
{
    const char *names[3] = {"plain chain (3)", "first square compensated (8)",
                            "fused compensated (10 + 3)"};
    double worst[3] = {0, 0, 0};
    float at[3] = {0, 0, 0};
    for (uint32_t u = 0x3f800000u; u < 0x40000000u; u++) {
        float x;
        memcpy(&x, &u, sizeof x);
        double ref = pow((double)x, 5);
        float h = x * x, l = fmaf(x, x, -h), p = h * h, c = fmaf(h, h, -p);
        float r[3] = {(x * x) * (x * x) * x, fmaf(p, x, ((h + h) * l) * x),
                      fmaf(p, x, fmaf(h + h, l, c) * x)};
        for (int k = 0; k < 3; k++) {
            double e = ulp_error(r[k], ref);
            if (e > worst[k]) {
                worst[k] = e;
                at[k] = x;
            }
        }
    }
    for (int k = 0; k < 3; k++)
        printf("%-30s worst %.3f ulp at x = %a\n", names[k], worst[k], (double)at[k]);
    return 0;
}
