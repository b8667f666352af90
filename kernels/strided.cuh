// strided.cuh -- the shared header of every minitorch CUDA kernel.
//
// The loader (minitorch/backends/cuda.py) pastes this file in front of every kernel
// family (map.cu, zip.cu, ...), so anything here is visible to all kernels. NVRTC has no
// standard headers, so nothing here (or in any .cu file) may #include anything.
//
// What a kernel sees of a tensor
// ------------------------------
// A pointer to the flat storage, plus an MtLayout: shape, strides and offset, exactly
// the three things minitorch/layout.py describes. The element at multi-index
// (i0, i1, ...) lives at storage position
//
//     offset + i0 * strides[0] + i1 * strides[1] + ...
//
// Layouts are passed *by value* as a struct with a fixed maximum rank (MT_MAX_DIMS).
// A kernel argument lives in the GPU's constant parameter space, so reading the shape
// costs no global-memory traffic, and no small device arrays need to be allocated and
// copied for every launch. Python merges dimensions that can be merged before it
// launches (a contiguous tensor becomes 1-D), so real ranks are small.
//
// The helpers mt_floordiv, mt_remainder and mt_pow follow Python's rules, because the
// scalar-op table (minitorch/scalar_ops.py) uses them in its CUDA C expressions.

#ifndef MT_STRIDED_CUH
#define MT_STRIDED_CUH

#define MT_MAX_DIMS 10
#define MT_FULL_MASK 0xffffffffu

// Must match LAYOUT_DTYPE in minitorch/backends/cuda.py (176 bytes, 8-byte aligned).
struct MtLayout {
    long long shape[MT_MAX_DIMS];
    long long strides[MT_MAX_DIMS];
    long long offset;
    long long ndim;
};

// ---------------------------------------------------------------------------------------
// Index arithmetic (the same two steps as layout.ordinal_to_index + index_to_position)
// ---------------------------------------------------------------------------------------

// Storage position of the `ordinal`-th element, counting in row-major order over
// layout.shape. The ordinal is a number whose digits are the indices: the last dimension
// changes fastest, so we peel digits off from the right and add index * stride for each.
// Operands of one elementwise kernel share the output's shape, so the same ordinal
// gives each operand its own position through its own strides.
__device__ inline long long mt_position(long long ordinal, const MtLayout& layout)
{
    long long position = layout.offset;
    for (int d = (int)layout.ndim - 1; d >= 0; --d) {
        const long long size = layout.shape[d];
        position += (ordinal % size) * layout.strides[d];
        ordinal /= size;
    }
    return position;
}

// Position of element [i, j, k] of a 3-D layout (matmul's [batch, rows, columns]).
__device__ inline long long mt_position3(const MtLayout& layout, long long i, long long j,
                                         long long k)
{
    return layout.offset + i * layout.strides[0] + j * layout.strides[1] + k * layout.strides[2];
}

// ---------------------------------------------------------------------------------------
// Python's integer and float rules for //, % and ** (used by the scalar-op table)
// ---------------------------------------------------------------------------------------
// The ops layer rejects integer division by zero before launching. The integer helpers
// still return 0 instead of dividing by zero: a GPU would return garbage, but the CPU
// emulator would die with SIGFPE. They also avoid LLONG_MIN / -1, which traps too.

// Floor division: C's `/` truncates toward zero, Python's `//` rounds toward minus
// infinity, so subtract one when the remainder is non-zero and the signs differ.
__device__ inline long long mt_floordiv(long long a, long long b)
{
    if (b == 0) return 0;
    if (b == -1) return (long long)(0ULL - (unsigned long long)a);  // -a, wrapping like NumPy
    const long long quotient = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}

__device__ inline int mt_floordiv(int a, int b)
{
    if (b == 0) return 0;
    if (b == -1) return (int)(0U - (unsigned int)a);
    const int quotient = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}

// Remainder with the sign of the divisor (Python's %), from C's remainder which has the
// sign of the dividend: add the divisor once when the signs disagree.
__device__ inline long long mt_remainder(long long a, long long b)
{
    if (b == 0 || b == -1) return 0;
    const long long r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

__device__ inline int mt_remainder(int a, int b)
{
    if (b == 0 || b == -1) return 0;
    const int r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// Floats: Python (and NumPy) compute a // b from fmod, not as floor(a / b): a / b is
// rounded first, so floor(1.0 / 0.1) would be 10 while the true quotient 9.99.. floors to 9.
__device__ inline double mt_floordiv(double a, double b)
{
    if (b == 0.0) return a / b;  // inf or nan, like NumPy
    const double mod = fmod(a, b);
    double quotient = (a - mod) / b;  // very nearly an integer
    if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) quotient -= 1.0;
    if (quotient == 0.0) return copysign(0.0, a / b);
    const double whole = floor(quotient);
    return (quotient - whole > 0.5) ? whole + 1.0 : whole;  // snap to the nearest integer
}

__device__ inline float mt_floordiv(float a, float b)
{
    if (b == 0.0f) return a / b;
    const float mod = fmod(a, b);
    float quotient = (a - mod) / b;
    if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) quotient -= 1.0f;
    if (quotient == 0.0f) return copysign(0.0f, a / b);
    const float whole = floor(quotient);
    return (quotient - whole > 0.5f) ? whole + 1.0f : whole;
}

__device__ inline double mt_remainder(double a, double b)
{
    if (b == 0.0) return fmod(a, b);  // nan
    const double mod = fmod(a, b);
    if (mod == 0.0) return mod;  // an exact 0 keeps a's sign, as in PyTorch
    return ((b < 0.0) != (mod < 0.0)) ? mod + b : mod;
}

__device__ inline float mt_remainder(float a, float b)
{
    if (b == 0.0f) return fmod(a, b);
    const float mod = fmod(a, b);
    if (mod == 0.0f) return mod;
    return ((b < 0.0f) != (mod < 0.0f)) ? mod + b : mod;
}

// Integer power by repeated squaring: base^13 = base^8 * base^4 * base^1 (13 = 0b1101).
// Unsigned arithmetic wraps on overflow exactly like NumPy's int64, without undefined
// behaviour. Negative exponents are rejected by the ops layer; answer like 1 / base^n
// truncated, so nothing here can trap.
__device__ inline long long mt_pow(long long base, long long exponent)
{
    if (exponent < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exponent & 1) ? -1 : 1;
        return 0;
    }
    unsigned long long result = 1ULL, square = (unsigned long long)base;
    while (exponent > 0) {
        if (exponent & 1) result *= square;
        square *= square;
        exponent >>= 1;
    }
    return (long long)result;
}

__device__ inline int mt_pow(int base, int exponent)
{
    return (int)mt_pow((long long)base, (long long)exponent);
}

__device__ inline double mt_pow(double a, double b) { return pow(a, b); }
__device__ inline float mt_pow(float a, float b) { return pow(a, b); }

// Integers are whole numbers already: floor, ceil and rint leave them alone (as NumPy 2 and
// PyTorch do). CUDA only declares float and double versions, so without these
// floor(int) would be ambiguous.
__device__ inline int floor(int a) { return a; }
__device__ inline long long floor(long long a) { return a; }
__device__ inline int ceil(int a) { return a; }
__device__ inline long long ceil(long long a) { return a; }
__device__ inline int rint(int a) { return a; }  // round: the same for whole numbers
__device__ inline long long rint(long long a) { return a; }

// ---------------------------------------------------------------------------------------
// Warp shuffles for every element type (CUDA has no bool overload: go through int)
// ---------------------------------------------------------------------------------------
// __shfl_down_sync(mask, v, delta): lane i receives v from lane i + delta of its warp
// (its own value when i + delta >= 32). All 32 lanes must execute the call together.

__device__ inline float mt_shfl_down(float v, int delta) { return __shfl_down_sync(MT_FULL_MASK, v, delta); }
__device__ inline double mt_shfl_down(double v, int delta) { return __shfl_down_sync(MT_FULL_MASK, v, delta); }
__device__ inline int mt_shfl_down(int v, int delta) { return __shfl_down_sync(MT_FULL_MASK, v, delta); }
__device__ inline long long mt_shfl_down(long long v, int delta) { return __shfl_down_sync(MT_FULL_MASK, v, delta); }
__device__ inline bool mt_shfl_down(bool v, int delta) { return __shfl_down_sync(MT_FULL_MASK, (int)v, delta) != 0; }

// ---------------------------------------------------------------------------------------
// Atomic addition for every element type (used by scatter_add)
// ---------------------------------------------------------------------------------------
// Many threads may add into the same output cell; atomicAdd makes each read-add-write
// indivisible. CUDA's atomicAdd has no signed 64-bit overload, but two's-complement
// addition is the same bit operation as unsigned addition, so we add as unsigned.

__device__ inline void mt_atomic_add(float* address, float value) { atomicAdd(address, value); }
__device__ inline void mt_atomic_add(double* address, double value) { atomicAdd(address, value); }
__device__ inline void mt_atomic_add(int* address, int value) { atomicAdd(address, value); }
__device__ inline void mt_atomic_add(long long* address, long long value)
{
    atomicAdd((unsigned long long*)address, (unsigned long long)value);
}

// 8- and 16-bit integers (uint8, int8, int16): atomics work on 4-byte words, so add into
// our bytes of the aligned word by compare-and-swap, trying again whenever another thread
// changed the word between our read and our write. The sum wraps like the type's own +.
template <typename T>
__device__ inline void mt_atomic_add_narrow(T* address, T value)
{
    const unsigned long long byte_address = (unsigned long long)address;
    unsigned int* word = (unsigned int*)(byte_address & ~3ULL);
    const unsigned int shift = 8u * (unsigned int)(byte_address & 3ULL);
    const unsigned int mask = ((1u << (8u * (unsigned int)sizeof(T))) - 1u) << shift;
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        const T current = (T)((assumed & mask) >> shift);
        const unsigned int sum = (unsigned int)(T)(current + value);
        old = atomicCAS(word, assumed, (assumed & ~mask) | ((sum << shift) & mask));
    } while (old != assumed);
}
__device__ inline void mt_atomic_add(unsigned char* address, unsigned char value) { mt_atomic_add_narrow(address, value); }
__device__ inline void mt_atomic_add(signed char* address, signed char value) { mt_atomic_add_narrow(address, value); }
__device__ inline void mt_atomic_add(short* address, short value) { mt_atomic_add_narrow(address, value); }

// bool: "adding" booleans is logical or (NumPy's bool + bool). Atomics work on 4-byte
// words, so set the lowest bit of our byte inside its aligned word (little-endian).
// minitorch pads every storage allocation so that this word never leaves it.
__device__ inline void mt_atomic_add(bool* address, bool value)
{
    if (!value) return;
    const unsigned long long byte_address = (unsigned long long)address;
    unsigned int* word = (unsigned int*)(byte_address & ~3ULL);
    atomicOr(word, 1u << (8u * (unsigned int)(byte_address & 3ULL)));
}

// "a < 0" for any element type (abs, sign). For unsigned bytes (uint8) that comparison is
// always false, and NVRTC refuses it as a "pointless comparison": this overload says so.
template <typename T> __device__ inline bool mt_is_negative(T a) { return a < (T)0; }
__device__ inline bool mt_is_negative(unsigned char) { return false; }

// ---------------------------------------------------------------------------------------
// The winner rule of argmax / argmin (reference.arg_reduce)
// ---------------------------------------------------------------------------------------
// Does candidate (value, index) beat the current (best, best_index)? NaN beats every
// number; among equals (two NaNs, or equal numbers) the smaller index wins, so the answer
// is the *first* maximum, whatever order the threads compared things in. An index of -1
// marks "no candidate yet" (a thread that was given no element).
template <typename T>
__device__ inline bool mt_arg_wins(T value, long long index, T best, long long best_index,
                                   bool want_max)
{
    if (index < 0) return false;
    if (best_index < 0) return true;
    const bool value_is_nan = !(value == value);
    const bool best_is_nan = !(best == best);
    if (value_is_nan || best_is_nan) {
        if (value_is_nan && best_is_nan) return index < best_index;
        return value_is_nan;
    }
    if (value == best) return index < best_index;
    return want_max ? (best < value) : (value < best);
}

#endif  // MT_STRIDED_CUH
