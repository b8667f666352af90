// scheduler.cpp -- the emulator's runtime: it runs a kernel's grid one block after
// another, and a block's threads as coroutines on one CPU core.
//
// Built once into its own shared library (minitorch/backends/cuda_emulator.py), loaded
// before any kernel module, which then finds block_index, sync_block, run... here.
//
// Coroutines in 20 lines
// ----------------------
// Every CUDA thread of the block gets its own 64 KB stack. The scheduler starts a thread
// by pointing the stack pointer at that stack and calling the kernel (start_on_stack).
// When the thread reaches __syncthreads() it saves its registers with _setjmp and jumps
// back into the scheduler with _longjmp; the scheduler then starts or resumes the next
// thread. A thread waiting at a barrier is resumed (by _longjmp to its saved registers)
// only once every thread of the block has arrived. That is all a barrier is.
//
//   scheduler:  for each runnable thread t, in the chosen order: switch to t
//   thread t:   runs until it finishes, or waits at a barrier -> switch back
//
// _setjmp/_longjmp only save and restore a few registers, so a switch costs tens of
// nanoseconds (swapcontext would also save the signal mask with a system call).
//
// Errors (an early return before a barrier, barriers at different lines, a deadlock) are
// recorded in `message`; the running coroutine is abandoned and run() returns 1. Python
// reads the message with mt_emulator_last_error() and raises it.

#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "cuda_emulator.h"

namespace mt_emu {

uint3 block_index;
dim3 block_dim;
dim3 grid_dim;
uint3* current_thread_index;

namespace {

constexpr std::size_t kStackBytes = 64 * 1024;
constexpr unsigned int kWarpSize = 32;
constexpr std::size_t kMaxSharedBytes = 48 * 1024;  // per block, static plus dynamic

enum class Status : unsigned char { not_started, running, waiting_block, waiting_warp, done };

struct Thread {
    jmp_buf context;                // its registers while it is switched out
    uint3 index;                    // threadIdx
    unsigned int linear;            // x + y * blockDim.x + z * blockDim.x * blockDim.y
    Status status;
    unsigned long long generation;  // the barrier generation it waits to see change
};

struct Warp {
    unsigned int present;  // lanes that exist (the last warp of a block may be partial)
    unsigned int exited;   // lanes that have returned
    unsigned int arrived;  // lanes waiting at the current warp barrier
    unsigned int mask;     // the mask they passed
    unsigned long long generation;
    const char* file;
    int line;
    unsigned long long mailbox[kWarpSize];  // one slot per lane for shuffles
};

struct BlockState {
    std::vector<Thread> threads;
    std::vector<Warp> warps;
    std::vector<unsigned int> order;  // the order the scheduler visits threads in
    unsigned int arrived = 0;         // threads waiting at __syncthreads()
    unsigned long long generation = 0;
    const char* barrier_file = "";
    int barrier_line = 0;
    unsigned int exited = 0;
    int first_exited = -1;
};

BlockState block;
const KernelCall* call = nullptr;
Thread* current = nullptr;  // the running thread; nullptr inside the scheduler
jmp_buf scheduler;
bool failed = false;
char message[4096];

char* stacks = nullptr;  // [guard page | stack] per thread
std::size_t stack_slots = 0;
std::size_t page_bytes = 4096;
std::vector<unsigned char> dynamic_shared;
unsigned int random_state = 1;

// Scheduler loop variables live here, not on the scheduler's stack, because _longjmp
// back into run_block may restore stale register copies of local variables.
unsigned int visit;
bool progressed;

void describe(char* out, std::size_t size, const uint3& t)
{
    std::snprintf(out, size, "thread (%u,%u,%u) of block (%u,%u,%u)", t.x, t.y, t.z,
                  block_index.x, block_index.y, block_index.z);
}

const uint3& thread_index(int linear) { return block.threads[(std::size_t)linear].index; }

void set_error(const char* format, ...)
{
    char detail[3000];
    va_list args;
    va_start(args, format);
    std::vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    char who[128] = "the scheduler";
    if (current != nullptr) describe(who, sizeof who, current->index);
    std::snprintf(message, sizeof message, "kernel %s, %s: %s", call ? call->name : "?", who, detail);
    failed = true;
}

// Record an error from inside a coroutine and abandon it.
[[noreturn]] void fail(const char* format, ...)
{
    char detail[3000];
    va_list args;
    va_start(args, format);
    std::vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    set_error("%s", detail);
    _longjmp(scheduler, 1);
}

void yield_to_scheduler()
{
    if (_setjmp(current->context) == 0) _longjmp(scheduler, 1);
    // resumed here by the scheduler
}

[[noreturn]] void finish_current_thread()
{
    Thread& t = *current;
    t.status = Status::done;
    ++block.exited;
    if (block.first_exited < 0) block.first_exited = (int)t.linear;
    Warp& warp = block.warps[t.linear / kWarpSize];
    warp.exited |= 1u << (t.linear % kWarpSize);
    if (block.arrived > 0) {
        fail("it returned while %u other thread(s) of its block wait at __syncthreads() at "
             "%s:%d. Every thread of a block must reach every __syncthreads(): on a GPU an "
             "early `return` before a barrier is undefined behaviour (a hang or garbage). "
             "Guard the work with an `if` instead of returning.",
             block.arrived, block.barrier_file, block.barrier_line);
    }
    if (warp.arrived > 0) {
        fail("it returned while %u lane(s) of its warp wait in a warp shuffle or "
             "__syncwarp() (%s:%d) that names its lane in the mask.",
             warp.arrived, warp.file, warp.line);
    }
    _longjmp(scheduler, 1);
}

[[noreturn]] void thread_main()
{
    call->invoke(call->params);
    finish_current_thread();
}

// Switch to a fresh stack and call `entry` there. `entry` never returns (it jumps back
// to the scheduler), so nothing after the call is ever reached.
[[noreturn]] void start_on_stack(char* top, void (*entry)())
{
#if defined(__x86_64__)
    asm volatile("movq %0, %%rsp\n\tcallq *%1\n\tud2" : : "r"(top), "r"(entry) : "memory");
#elif defined(__aarch64__)
    asm volatile("mov sp, %0\n\tblr %1\n\tbrk #0" : : "r"(top), "r"(entry) : "memory");
#else
#error "the minitorch CUDA emulator supports x86-64 and aarch64 hosts"
#endif
    __builtin_unreachable();
}

bool allocate_stacks(std::size_t count)
{
    if (count <= stack_slots) return true;
    const std::size_t slot = page_bytes + kStackBytes;
    if (stacks != nullptr) munmap(stacks, stack_slots * slot);
    void* memory = mmap(nullptr, count * slot, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
        stacks = nullptr;
        stack_slots = 0;
        return false;
    }
    stacks = static_cast<char*>(memory);
    stack_slots = count;
    for (std::size_t i = 0; i < count; ++i) {
        mprotect(stacks + i * slot, page_bytes, PROT_NONE);  // overflow faults, never corrupts
    }
    return true;
}

char* stack_top(unsigned int linear)
{
    return stacks + (std::size_t)(linear + 1) * (page_bytes + kStackBytes);  // 16-byte aligned
}

bool runnable(const Thread& t)
{
    switch (t.status) {
        case Status::not_started: return true;
        case Status::waiting_block: return t.generation != block.generation;
        case Status::waiting_warp: return t.generation != block.warps[t.linear / kWarpSize].generation;
        default: return false;
    }
}

unsigned int next_random()
{
    random_state ^= random_state << 13;
    random_state ^= random_state >> 17;
    random_state ^= random_state << 5;
    return random_state;
}

void choose_order(int order)
{
    const unsigned int n = (unsigned int)block.order.size();
    for (unsigned int i = 0; i < n; ++i) block.order[i] = order == 1 ? n - 1 - i : i;
    if (order == 2) {  // Fisher-Yates shuffle
        for (unsigned int i = n; i > 1; --i) {
            const unsigned int j = next_random() % i;
            const unsigned int kept = block.order[i - 1];
            block.order[i - 1] = block.order[j];
            block.order[j] = kept;
        }
    }
}

void explain_deadlock()
{
    unsigned int at_block = 0, at_warp = 0;
    int warp_waiter = -1;
    for (const Thread& t : block.threads) {
        if (t.status == Status::waiting_block) ++at_block;
        if (t.status == Status::waiting_warp) {
            ++at_warp;
            if (warp_waiter < 0) warp_waiter = (int)t.linear;
        }
    }
    char who[128] = "";
    if (warp_waiter >= 0) describe(who, sizeof who, thread_index(warp_waiter));
    set_error("deadlock: %u thread(s) wait at __syncthreads() (%s:%d) and %u in warp operations "
              "(first: %s at %s:%d), and none can proceed. All lanes named in a warp mask must "
              "reach the same warp operation, and every thread every __syncthreads().",
              at_block, block.barrier_file, block.barrier_line, at_warp, who,
              warp_waiter >= 0 ? block.warps[(unsigned)warp_waiter / kWarpSize].file : "",
              warp_waiter >= 0 ? block.warps[(unsigned)warp_waiter / kWarpSize].line : 0);
}

// Run every thread of the current block to completion. False on an error.
bool run_block()
{
    const unsigned int n = (unsigned int)block.threads.size();
    for (;;) {
        progressed = false;
        for (visit = 0; visit < n; ++visit) {
            Thread* t = &block.threads[block.order[visit]];
            if (!runnable(*t)) continue;
            progressed = true;
            current = t;
            current_thread_index = &t->index;
            if (_setjmp(scheduler) == 0) {
                if (t->status == Status::not_started) {
                    t->status = Status::running;
                    start_on_stack(stack_top(t->linear), thread_main);
                }
                t->status = Status::running;
                _longjmp(t->context, 1);
            }
            // back from the thread: it finished, waits at a barrier, or failed
            current = nullptr;
            if (failed) return false;
        }
        if (block.exited == n) return true;
        if (!progressed) {
            explain_deadlock();
            return false;
        }
    }
}

}  // namespace

// ----- called by kernels (through cuda_emulator.h) -------------------------------------------

void sync_block(const char* file, int line)
{
    Thread& t = *current;
    if (block.exited > 0) {
        char who[128];
        describe(who, sizeof who, thread_index(block.first_exited));
        fail("it reached __syncthreads() at %s:%d after %s had returned. Every thread of a "
             "block must reach every __syncthreads(): on a GPU an early `return` before a "
             "barrier is undefined behaviour (a hang or garbage). Guard the work with an `if` "
             "instead of returning.",
             file, line, who);
    }
    if (block.arrived == 0) {
        block.barrier_file = file;
        block.barrier_line = line;
    } else if (line != block.barrier_line || std::strcmp(file, block.barrier_file) != 0) {
        fail("it waits at __syncthreads() at %s:%d while other threads of its block wait at "
             "%s:%d. All threads must reach the same barriers; a __syncthreads() inside an "
             "`if` that only some threads take is undefined behaviour on a GPU.",
             file, line, block.barrier_file, block.barrier_line);
    }
    t.status = Status::waiting_block;
    t.generation = block.generation;
    if (++block.arrived == block.threads.size()) {  // the last one releases everybody
        block.arrived = 0;
        ++block.generation;
    }
    yield_to_scheduler();
}

void sync_warp(const char* file, int line, unsigned int mask)
{
    Thread& t = *current;
    Warp& warp = block.warps[t.linear / kWarpSize];
    const unsigned int lane = t.linear % kWarpSize;
    if (((mask >> lane) & 1u) == 0) {
        fail("it calls a warp operation (%s:%d) with mask 0x%08x, which does not include its "
             "own lane %u.", file, line, mask, lane);
    }
    const unsigned int participants = mask & warp.present;
    if (participants & warp.exited) {
        fail("it waits in a warp operation (%s:%d) for lanes 0x%08x of its warp, which have "
             "already returned.", file, line, participants & warp.exited);
    }
    if (warp.arrived == 0) {
        warp.mask = mask;
        warp.file = file;
        warp.line = line;
    } else if (warp.mask != mask) {
        fail("lanes of one warp meet in warp operations with different masks (0x%08x at %s:%d, "
             "0x%08x at %s:%d).", mask, file, line, warp.mask, warp.file, warp.line);
    }
    t.status = Status::waiting_warp;
    t.generation = warp.generation;
    if (++warp.arrived == (unsigned int)__builtin_popcount(participants)) {
        warp.arrived = 0;
        ++warp.generation;
    }
    yield_to_scheduler();
}

const unsigned long long* warp_publish(unsigned int mask, const void* value, std::size_t size)
{
    Warp& warp = block.warps[current->linear / kWarpSize];
    unsigned long long& slot = warp.mailbox[current->linear % kWarpSize];
    slot = 0;
    std::memcpy(&slot, value, size);
    sync_warp("a warp shuffle", 0, mask);  // every lane has published
    return warp.mailbox;
}

void warp_done(unsigned int mask)
{
    sync_warp("a warp shuffle", 0, mask);  // every lane has read before anyone writes again
}

unsigned int lane_id() { return current->linear % kWarpSize; }

void* dynamic_shared_memory() { return dynamic_shared.data(); }

// ----- called by each kernel module's mt_launch_<kernel> ----------------------------------------

int run(const LaunchConfig* config, const KernelCall* kernel_call)
{
    call = kernel_call;
    current = nullptr;
    failed = false;
    message[0] = '\0';
    grid_dim = dim3(config->grid[0], config->grid[1], config->grid[2]);
    block_dim = dim3(config->block[0], config->block[1], config->block[2]);
    const unsigned long long n = (unsigned long long)block_dim.x * block_dim.y * block_dim.z;
    const std::size_t static_shared = (std::size_t)(call->shared_end - call->shared_begin);
    if (n == 0 || n > 1024 || grid_dim.x == 0 || grid_dim.y == 0 || grid_dim.z == 0) {
        set_error("invalid launch: grid (%u,%u,%u), block (%u,%u,%u)", grid_dim.x, grid_dim.y,
                  grid_dim.z, block_dim.x, block_dim.y, block_dim.z);
        return 1;
    }
    if (static_shared + config->shared_mem > kMaxSharedBytes + 1) {  // +1: the anchor byte
        set_error("the block needs %zu bytes of shared memory, more than the %zu a GPU offers",
                  static_shared - 1 + (std::size_t)config->shared_mem, kMaxSharedBytes);
        return 1;
    }
    page_bytes = (std::size_t)sysconf(_SC_PAGESIZE);
    if (!allocate_stacks(n)) {
        set_error("could not allocate %llu coroutine stacks", n);
        return 1;
    }
    dynamic_shared.assign(config->shared_mem + 16, 0xff);
    random_state = config->seed * 2654435761u + 1u;

    block.threads.assign(n, Thread{});
    block.warps.assign((n + kWarpSize - 1) / kWarpSize, Warp{});
    block.order.assign(n, 0);
    for (unsigned int i = 0; i < n; ++i) {
        Thread& t = block.threads[i];
        t.linear = i;
        t.index = uint3{i % block_dim.x, (i / block_dim.x) % block_dim.y, i / (block_dim.x * block_dim.y)};
        block.warps[i / kWarpSize].present |= 1u << (i % kWarpSize);
    }

    const unsigned long long blocks = (unsigned long long)grid_dim.x * grid_dim.y * grid_dim.z;
    for (unsigned long long b = 0; b < blocks; ++b) {
        const unsigned long long linear = config->order == 1 ? blocks - 1 - b : b;
        block_index = uint3{(unsigned int)(linear % grid_dim.x),
                            (unsigned int)((linear / grid_dim.x) % grid_dim.y),
                            (unsigned int)(linear / ((unsigned long long)grid_dim.x * grid_dim.y))};
        // Poison shared memory: 0xff bytes read as NaN (floats) or -1 (integers).
        std::memset(call->shared_begin, 0xff, static_shared);
        std::memset(dynamic_shared.data(), 0xff, dynamic_shared.size());
        for (Thread& t : block.threads) t.status = Status::not_started;
        for (Warp& warp : block.warps) {
            warp.exited = warp.arrived = 0;
            warp.generation = 0;
            std::memset(warp.mailbox, 0xff, sizeof warp.mailbox);
        }
        block.arrived = 0;
        block.generation = 0;
        block.exited = 0;
        block.first_exited = -1;
        choose_order(config->order);
        if (!run_block()) return 1;
    }
    return 0;
}

}  // namespace mt_emu

extern "C" const char* mt_emulator_last_error() { return mt_emu::message; }
extern "C" int mt_emulator_abi_version() { return 1; }
