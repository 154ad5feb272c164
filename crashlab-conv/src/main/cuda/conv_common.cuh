// Shared by the three convolution passes: the problem geometry the host passes by value, element
// conversion for the storage types, and the tiled implicit-GEMM engine each pass plugs its loaders into.
//
// Every pass is a GEMM whose operands are never materialised: a pass describes how to fetch element
// (row, red) of A and (red, col) of B straight from the tensors (im2col on the fly) and where result
// (row, col) goes. The engine stages BM x BK and BK x BN tiles of A and B in shared memory (as float,
// whatever the storage type), and each of its 256 threads accumulates a 4 x 4 block of the
// BM x BN output tile in float32 registers.
//
// NOTE: the host (dev.crashlab.repro.cuda.ConvGeometry) packs ConvGeom as consecutive 32-bit ints in
// this field order; the PTX parameter size is checked against it by a test.
#pragma once

#include <cuda_fp16.h>
#include <cuda_bf16.h>

// A direct (not transposed) convolution in the 3-D general form: rank 1 and 2 problems have depth and
// height of 1, a kernel of 1, stride 1, no padding there. Tensors are channels-first: x (n, c, id, ih, iw),
// w (k, c / groups, kd, kh, kw), y (n, k, od, oh, ow).
struct ConvGeom {
    int n, c, k, groups;
    int id, ih, iw;
    int od, oh, ow;
    int kd, kh, kw;
    int sd, sh, sw;
    int pd, ph, pw;      // zero padding before each dimension (the padding after only shapes od/oh/ow)
    int dd, dh, dw;      // dilation
    int groupBase;       // first group of this launch (grids hold at most 65535 groups in z)
    int splitK;          // slices of the reduction per group (backward-filter only; 1 elsewhere)
};

constexpr int TILE_M = 64;
constexpr int TILE_N = 64;
constexpr int TILE_K = 16;
constexpr int THREADS = 256;   // 16 x 16 threads, each owning 4 x 4 outputs of the 64 x 64 tile

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// Runs one output tile: rows [rowBase, rowBase + TILE_M), columns [colBase, colBase + TILE_N), over the
// reduction range [redBegin, redEnd). Pass is a struct with
//   long long rows() / int cols(),
//   Row row(long long r)      per-row context (index decomposition done once per thread, not per element),
//   Col col(int c)            per-column context,
//   float a(const Row&, long long red), float b(const Col&, long long red)  (0 outside the tensors),
//   void store(const Row&, const Col&, float v)  only called for rows < rows() and cols < cols().
template <class Pass>
__device__ __forceinline__ void tiled_gemm(const Pass& pass, long long rowBase, int colBase,
                                           long long redBegin, long long redEnd) {
    __shared__ float tileA[TILE_K][TILE_M];
    __shared__ float tileB[TILE_K][TILE_N];

    const int tid = threadIdx.x;
    // Loading: each thread fetches 4 elements of A in one row and 4 of B in one column, so the index
    // decomposition of that row and column is done once for the whole reduction.
    const int loadRow = tid % TILE_M;
    const int loadCol = tid % TILE_N;
    const int loadRed0 = tid / TILE_M;    // 0..3; the thread's reduction offsets are loadRed0 + 4 * i
    const typename Pass::Row aRow = pass.row(rowBase + loadRow);
    const typename Pass::Col bCol = pass.col(colBase + loadCol);

    // Computing: thread (tx, ty) owns rows tx + 16 * i and columns ty + 16 * j of the tile. Consecutive
    // threads read consecutive shared words (no bank conflicts) and store to consecutive rows.
    const int tx = tid % 16;
    const int ty = tid / 16;
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.0f;
    }

    for (long long red0 = redBegin; red0 < redEnd; red0 += TILE_K) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int kk = loadRed0 + 4 * i;
            const long long red = red0 + kk;
            tileA[kk][loadRow] = red < redEnd ? pass.a(aRow, red) : 0.0f;
            tileB[kk][loadCol] = red < redEnd ? pass.b(bCol, red) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE_K; kk++) {
            float av[4], bv[4];
#pragma unroll
            for (int i = 0; i < 4; i++) av[i] = tileA[kk][tx + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; j++) bv[j] = tileB[kk][ty + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; i++) {
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 4; i++) {
        const long long r = rowBase + tx + 16 * i;
        if (r >= pass.rows()) continue;
        const typename Pass::Row row = pass.row(r);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int c = colBase + ty + 16 * j;
            if (c < pass.cols()) pass.store(row, pass.col(c), acc[i][j]);
        }
    }
}
