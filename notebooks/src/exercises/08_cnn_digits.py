# %% [markdown]
# # Exercises 8 · Convolution
#
# **Goal:** write `conv2d(x, weight, bias)` (stride 1, no padding) as one strided view
# plus one matrix multiplication, using only differentiable tensor operations so that
# gradients flow to the input, the weight and the bias. The check compares values and
# gradients with the definition, on several shapes and on a non-contiguous input.

# %% setup(backend="numba")

# %%
import minitorch
from minitorch.course.training_checks import check_conv2d

# %% [markdown]
# ## Exercise: `conv2d`
#
# `x` is `[N, C, H, W]`, `weight` is `[O, C, kh, kw]`, `bias` is `[O]`; the result is
# `[N, O, H - kh + 1, W - kw + 1]` with
# `out[n, o, i, j] = bias[o] + sum over c, p, q of x[n, c, i+p, j+q] * weight[o, c, p, q]`.
#
# 1. Make `x` contiguous (`as_strided` reads the storage directly).
# 2. View all windows with `x.as_strided(size, stride)`: size `(N, OH, OW, C, kh, kw)`;
#    which stride of `x` does each of these six dimensions step by?
# 3. Flatten windows to rows, filters to columns, multiply, add the bias, and put the
#    dimensions back in order.

# %% exercise=conv2d
def conv2d(x, weight, bias):
    raise NotImplementedError  # your code here

# %%
check_conv2d(conv2d)
