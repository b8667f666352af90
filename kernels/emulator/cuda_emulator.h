// cuda_emulator.h -- just enough CUDA for the host C++ compiler to build our unchanged
// .cu kernels, so that students without a GPU (and our CI) run the very same code.
//
// How a GPU runs a kernel, and how we imitate it on one CPU core:
//
//   GPU                                      emulator (scheduler.cpp)
//   ---------------------------------------  ------------------------------------------
//   a grid of blocks, run in parallel        blocks run one after another
//   a block's threads run in parallel        a block's threads are coroutines: each has
//                                            its own small stack, and runs until it
//                                            finishes or waits at a barrier
//   __syncthreads(): wait for the block      the thread yields to the scheduler, which
//                                            resumes it once every thread has arrived
//   __shared__ memory, one copy per block    one static copy: only one block is alive
//                                            at a time. Filled with 0xff bytes (NaN) at
//                                            every block start, so reading memory that no
//                                            thread wrote shows up in the results
//   warp shuffles exchange registers         values go through a per-warp mailbox, with
//                                            a warp barrier before and after
//   atomics                                  plain read-modify-write: only one thread
//                                            runs at a time and never in the middle of one
//
// The emulator also checks what a GPU silently gets wrong: a thread that returns while
// others wait at __syncthreads, or threads waiting at *different* __syncthreads calls,
// raise an error naming the threads and the source line. Threads can run in forward,
// reversed or shuffled order (a missing barrier often only shows in some orders).
//
// It proves the algorithm and the index arithmetic. It says nothing about speed,
// occupancy, memory coalescing or CuPy's launch path: those need a real GPU.

#pragma once

#include <math.h>  // libstdc++'s math.h also gives float overloads: exp(float), ...

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

// ----- keywords -----------------------------------------------------------------------

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __constant__ static
// Every __shared__ variable goes into one ELF section, so the scheduler can find all of
// them (between __start_mt_shared and __stop_mt_shared) and poison them per block.
#define __shared__ static __attribute__((section("mt_shared")))
// (`extern __shared__ T name[];` cannot be a macro: the loader rewrites it into a pointer
// to the launch's dynamic shared memory, mt_emu::dynamic_shared_memory().)

struct uint3 {
    unsigned int x, y, z;
};

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

// ----- the runtime's side (scheduler.cpp) -------------------------------------------------

namespace mt_emu {

struct LaunchConfig {  // mirrored by LaunchConfig in minitorch/backends/cuda_emulator.py
    unsigned int grid[3];
    unsigned int block[3];
    unsigned long long shared_mem;  // bytes of dynamic (extern) shared memory
    int order;                      // 0 forward, 1 reversed, 2 shuffled
    unsigned int seed;              // for the shuffled order
};

struct KernelCall {
    void (*invoke)(void** params);  // calls the kernel with the unpacked arguments
    void** params;                  // one pointer per argument, like cuLaunchKernel's
    char* shared_begin;             // this module's static __shared__ variables
    char* shared_end;
    const char* name;
};

extern uint3 block_index;
extern dim3 block_dim;
extern dim3 grid_dim;
extern uint3* current_thread_index;

void sync_block(const char* file, int line);
void sync_warp(const char* file, int line, unsigned int mask = 0xffffffffu);
// Warp exchange: store this lane's value, wait for the warp, read the mailbox, then
// warp_done() waits again so no lane overwrites its slot before everyone has read.
const unsigned long long* warp_publish(unsigned int mask, const void* value, std::size_t size);
void warp_done(unsigned int mask);
unsigned int lane_id();
void* dynamic_shared_memory();
int run(const LaunchConfig* config, const KernelCall* call);

// A compiler barrier around every scheduling point: shared memory written before a
// barrier must really be in memory when another coroutine reads it.
#define MT_EMU_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

}  // namespace mt_emu

#define threadIdx (*mt_emu::current_thread_index)
#define blockIdx (mt_emu::block_index)
#define blockDim (mt_emu::block_dim)
#define gridDim (mt_emu::grid_dim)
#define warpSize 32

#define __syncthreads() (MT_EMU_FENCE(), mt_emu::sync_block(__FILE__, __LINE__), MT_EMU_FENCE())
#define __syncwarp(...) \
    (MT_EMU_FENCE(), mt_emu::sync_warp(__FILE__, __LINE__ __VA_OPT__(, ) __VA_ARGS__), MT_EMU_FENCE())
#define __threadfence() MT_EMU_FENCE()
#define __threadfence_block() MT_EMU_FENCE()

// ----- warp shuffles ------------------------------------------------------------------------

namespace mt_emu {
template <typename V>
inline V shuffle_from(unsigned int mask, V value, int source_lane)
{
    static_assert(sizeof(V) <= 8, "warp shuffles move at most 8 bytes");
    MT_EMU_FENCE();
    const unsigned long long* mailbox = warp_publish(mask, &value, sizeof(V));
    V result;
    std::memcpy(&result, &mailbox[source_lane], sizeof(V));
    warp_done(mask);
    MT_EMU_FENCE();
    return result;
}
}  // namespace mt_emu

// Lanes are grouped in segments of `width` (a power of two <= 32); a source outside the
// caller's segment gives the caller its own value, as on a GPU.
template <typename V>
inline V __shfl_sync(unsigned int mask, V value, int source, int width = 32)
{
    const int lane = (int)mt_emu::lane_id();
    const int segment_start = lane - lane % width;
    return mt_emu::shuffle_from(mask, value, segment_start + ((source % width) + width) % width);
}

template <typename V>
inline V __shfl_down_sync(unsigned int mask, V value, unsigned int delta, int width = 32)
{
    const int lane = (int)mt_emu::lane_id();
    const bool inside = (lane % width) + (int)delta < width;
    return mt_emu::shuffle_from(mask, value, inside ? lane + (int)delta : lane);
}

template <typename V>
inline V __shfl_up_sync(unsigned int mask, V value, unsigned int delta, int width = 32)
{
    const int lane = (int)mt_emu::lane_id();
    const bool inside = (lane % width) >= (int)delta;
    return mt_emu::shuffle_from(mask, value, inside ? lane - (int)delta : lane);
}

template <typename V>
inline V __shfl_xor_sync(unsigned int mask, V value, int lane_mask, int width = 32)
{
    const int lane = (int)mt_emu::lane_id();
    const int source = lane ^ lane_mask;
    const bool inside = source / width == lane / width;
    return mt_emu::shuffle_from(mask, value, inside ? source : lane);
}

inline unsigned int __ballot_sync(unsigned int mask, int predicate)
{
    const unsigned long long* mailbox = mt_emu::warp_publish(mask, &predicate, sizeof(int));
    unsigned int bits = 0;
    for (int lane = 0; lane < 32; ++lane) {
        if ((mask >> lane) & 1u) {
            int value;
            std::memcpy(&value, &mailbox[lane], sizeof(int));
            if (value) bits |= 1u << lane;
        }
    }
    mt_emu::warp_done(mask);
    return bits;
}

inline int __any_sync(unsigned int mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
inline int __all_sync(unsigned int mask, int predicate)
{
    return __ballot_sync(mask, !predicate) == 0;
}

// ----- atomics: one thread runs at a time, so a plain read-modify-write is indivisible --

template <typename V> inline V atomicAdd(V* address, V value) { const V old = *address; *address = old + value; return old; }
template <typename V> inline V atomicSub(V* address, V value) { const V old = *address; *address = old - value; return old; }
template <typename V> inline V atomicExch(V* address, V value) { const V old = *address; *address = value; return old; }
template <typename V> inline V atomicMin(V* address, V value) { const V old = *address; *address = value < old ? value : old; return old; }
template <typename V> inline V atomicMax(V* address, V value) { const V old = *address; *address = value > old ? value : old; return old; }
template <typename V> inline V atomicAnd(V* address, V value) { const V old = *address; *address = old & value; return old; }
template <typename V> inline V atomicOr(V* address, V value) { const V old = *address; *address = old | value; return old; }
template <typename V> inline V atomicXor(V* address, V value) { const V old = *address; *address = old ^ value; return old; }
template <typename V> inline V atomicCAS(V* address, V compare, V value)
{
    const V old = *address;
    if (old == compare) *address = value;
    return old;
}

// ----- device functions CUDA has and the C library does not --------------------------------

inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rsqrt(float x) { return 1.0f / sqrtf(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __int_as_float(int bits) { float f; std::memcpy(&f, &bits, 4); return f; }
inline int __float_as_int(float f) { int bits; std::memcpy(&bits, &f, 4); return bits; }
inline double __longlong_as_double(long long bits) { double d; std::memcpy(&d, &bits, 8); return d; }
inline long long __double_as_longlong(double d) { long long bits; std::memcpy(&bits, &d, 8); return bits; }
template <typename V> inline V __ldg(const V* address) { return *address; }
template <typename A, typename B> inline auto min(A a, B b) { return b < a ? b : a; }
template <typename A, typename B> inline auto max(A a, B b) { return a < b ? b : a; }

// ----- launching: one exported wrapper per kernel ---------------------------------------------
// The emulator's loader appends, for every kernel K of a module:
//     extern "C" int mt_launch_K(const mt_emu::LaunchConfig* c, void** p)
//     { return mt_emu::launch<K>(c, p, "K"); }
// `launch` unpacks the argument pointers with the kernel's own parameter types.

// This module's static shared memory lives between these two linker-made symbols; the
// anchor makes sure the section exists even when the module declares no __shared__.
static char mt_shared_anchor __attribute__((section("mt_shared"), used));
extern "C" char __start_mt_shared[] __attribute__((visibility("hidden")));
extern "C" char __stop_mt_shared[] __attribute__((visibility("hidden")));

namespace mt_emu {
template <typename... Args, std::size_t... I>
inline void call_unpacked(void (*kernel)(Args...), void** params, std::index_sequence<I...>)
{
    kernel(*static_cast<Args*>(params[I])...);
}

template <typename... Args>
inline void call_unpacked_for(void (*kernel)(Args...), void** params)
{
    call_unpacked(kernel, params, std::index_sequence_for<Args...>{});
}

template <auto Kernel>
void invoke(void** params)
{
    call_unpacked_for(Kernel, params);
}

template <auto Kernel>
int launch(const LaunchConfig* config, void** params, const char* name)
{
    const KernelCall call{&invoke<Kernel>, params, __start_mt_shared, __stop_mt_shared, name};
    return run(config, &call);
}
}  // namespace mt_emu
