/* The geometric and matrix builtins over scalarized vectors and column-major
 * matrices (element (row r, column c) of an n x n matrix is m[c*n + r]): reflect,
 * refract, faceforward, determinant, inverse, and the data-movement helpers
 * transpose, outerProduct and matrixCompMult. */
#include "MathInternal.h"

/* reflect: I - 2 dot(N, I) N, one fma a component. */
void fmag_build_reflect(fmag_builder *b, fmag_value *const *I, fmag_value *const *N, unsigned n,
                        fmag_value **out, bool fm)
{
    fmag_value *d = fmag_build_dot(b, N, I, n, fm);
    fmag_value *d2 = MUL(b, d, K(b, -2.0f));
    for (unsigned i = 0; i < n; i++)
        out[i] = FMA(b, d2, N[i], I[i]);
}

/* refract: k = 1 - eta^2 (1 - dot(N,I)^2); k < 0 gives the zero vector, otherwise
 * eta I - (eta dot(N,I) + sqrt(k)) N. */
void fmag_build_refract(fmag_builder *b, fmag_value *const *I, fmag_value *const *N,
                        fmag_value *eta, unsigned n, fmag_value **out, bool fm)
{
    fmag_value *d = fmag_build_dot(b, N, I, n, fm);
    fmag_value *one_m_d2 = FMA(b, fmag_build_neg(b, d), d, K(b, 1.0f));
    fmag_value *ne2 = MUL(b, fmag_build_neg(b, eta), eta);
    fmag_value *k = FMA(b, ne2, one_m_d2, K(b, 1.0f));
    fmag_value *nk = fmag_build_neg(b, k);
    fmag_value *c = FMA(b, eta, d, fmag_build_sqrt(b, fmag_build_relu(b, k), fm));
    fmag_value *nc = fmag_build_neg(b, c);
    for (unsigned i = 0; i < n; i++) {
        fmag_value *v = FMA(b, nc, N[i], MUL(b, eta, I[i]));
        out[i] = SEL(b, K(b, 0.0f), v, nk);
    }
}

/* faceforward: dot(Nref, I) < 0 ? N : -N, as N times a sign chosen once. */
void fmag_build_faceforward(fmag_builder *b, fmag_value *const *N, fmag_value *const *I,
                            fmag_value *const *Nref, unsigned n, fmag_value **out, bool fm)
{
    fmag_value *d = fmag_build_dot(b, Nref, I, n, fm);
    fmag_value *s = SEL(b, K(b, 1.0f), K(b, -1.0f), fmag_build_neg(b, d));
    for (unsigned i = 0; i < n; i++)
        out[i] = MUL(b, N[i], s);
}

typedef struct matrix {
    fmag_value *const *m;
    unsigned n;
} matrix;

static fmag_value *at(const matrix *A, unsigned r, unsigned c)
{
    return A->m[c * A->n + r];
}

/* The determinant of the square submatrix on rows[0..k-1] x cols[0..k-1], by
 * Laplace expansion along its first row; a 2 x 2 is a*d - b*c as one fma on the
 * rounded b*c. CSE shares the repeated minors. */
static fmag_value *subdet(fmag_builder *b, const matrix *A, const unsigned *rows,
                          const unsigned *cols, unsigned k)
{
    if (k == 1) return at(A, rows[0], cols[0]);
    if (k == 2) {
        fmag_value *bc = MUL(b, at(A, rows[0], cols[1]), at(A, rows[1], cols[0]));
        return FMA(b, at(A, rows[0], cols[0]), at(A, rows[1], cols[1]), fmag_build_neg(b, bc));
    }
    fmag_value *r = NULL;
    for (unsigned j = 0; j < k; j++) {
        unsigned sc[4], nc = 0;
        for (unsigned t = 0; t < k; t++)
            if (t != j) sc[nc++] = cols[t];
        fmag_value *minor = subdet(b, A, rows + 1, sc, k - 1);
        fmag_value *a = at(A, rows[0], cols[j]);
        if (j & 1) a = fmag_build_neg(b, a);
        r = r ? FMA(b, a, minor, r) : MUL(b, a, minor);
    }
    return r;
}

fmag_value *fmag_build_determinant(fmag_builder *b, fmag_value *const *m, unsigned n, bool fm)
{
    (void)fm;
    static const unsigned idx[4] = {0, 1, 2, 3};
    matrix A = {m, n};
    return subdet(b, &A, idx, idx, n);
}

/* inverse: the adjugate (transposed cofactors) times 1/det. Entry (r, c) of the
 * inverse is (-1)^(r+c) det(A without row c and column r) / det A. */
void fmag_build_inverse(fmag_builder *b, fmag_value *const *m, unsigned n, fmag_value **out,
                        bool fm)
{
    static const unsigned idx[4] = {0, 1, 2, 3};
    matrix A = {m, n};
    fmag_value *det = subdet(b, &A, idx, idx, n);
    fmag_value *inv = fmag_build_rcp(b, det, fm);
    for (unsigned r = 0; r < n; r++)
        for (unsigned c = 0; c < n; c++) {
            unsigned rows[4], cols[4], nr = 0, nc = 0;
            for (unsigned t = 0; t < n; t++) {
                if (t != c) rows[nr++] = t;
                if (t != r) cols[nc++] = t;
            }
            fmag_value *cof = subdet(b, &A, rows, cols, n - 1);
            out[c * n + r] = MUL(b, cof, (r + c) & 1 ? fmag_build_neg(b, inv) : inv);
        }
}

void fmag_build_transpose(fmag_value *const *m, unsigned cols, unsigned rows, fmag_value **out)
{
    for (unsigned c = 0; c < cols; c++)
        for (unsigned r = 0; r < rows; r++)
            out[r * cols + c] = m[c * rows + r];
}

void fmag_build_outer_product(fmag_builder *b, fmag_value *const *c, unsigned rows,
                              fmag_value *const *r, unsigned cols, fmag_value **out)
{
    for (unsigned j = 0; j < cols; j++)
        for (unsigned i = 0; i < rows; i++)
            out[j * rows + i] = MUL(b, c[i], r[j]);
}

void fmag_build_matrix_comp_mult(fmag_builder *b, fmag_value *const *x, fmag_value *const *y,
                                 unsigned count, fmag_value **out)
{
    for (unsigned i = 0; i < count; i++)
        out[i] = MUL(b, x[i], y[i]);
}
