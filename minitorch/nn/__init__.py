"""``minitorch.nn``: layers, losses and the ``Module`` they are built from.

| file                 | what                                                       |
| -------------------- | ---------------------------------------------------------- |
| ``module.py``        | ``Module`` (registration, ``parameters``, ``state_dict``...), ``Parameter`` |
| ``container.py``     | ``Sequential``, ``ModuleList``, ``ModuleDict``              |
| ``linear.py``        | ``Linear``, ``Identity``, ``Flatten``                       |
| ``activation.py``    | ``ReLU``, ``LeakyReLU``, ``Tanh``, ``Sigmoid``, ``GELU``, ``Softmax``, ...  |
| ``activation_family.py`` | ``Hardtanh``, ``ELU``, ``SELU``, ``Softplus``, ``PReLU``, ``GLU``, ... |
| ``conv.py``          | ``Conv1d``, ``Conv2d``, ``Conv3d`` (with groups: grouped and depthwise) |
| ``conv_transpose.py`` | ``ConvTranspose1d/2d/3d``                                  |
| ``pooling.py``       | ``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``                    |
| ``fractional_max_pooling.py`` | ``FractionalMaxPool2d/3d`` (windows at pseudo-random starts) |
| ``normalization.py`` | ``BatchNorm1d/2d/3d``, ``LayerNorm``                        |
| ``sample_normalization.py`` | ``GroupNorm``, ``InstanceNorm1d/2d/3d``, ``RMSNorm``, ``LocalResponseNorm`` |
| ``upsampling.py``    | ``Upsample``, ``PixelShuffle``, ``PixelUnshuffle``          |
| ``fold.py``          | ``Unfold``, ``Fold`` (im2col, col2im)                       |
| ``dropout.py``       | ``Dropout``                                                 |
| ``adaptive_pooling.py`` | ``AdaptiveAvgPool1d/3d``, ``AdaptiveMaxPool1d/2d/3d``    |
| ``adaptive_softmax.py`` | ``AdaptiveLogSoftmaxWithLoss`` (a cheap softmax over a large vocabulary) |
| ``lp_pooling.py``    | ``LPPool1d/2d/3d``                                          |
| ``max_unpooling.py`` | ``MaxUnpool1d/2d/3d``                                      |
| ``bilinear.py``      | ``Bilinear``                                                |
| ``distance.py``      | ``CosineSimilarity``, ``PairwiseDistance``                  |
| ``channel_shuffle.py`` | ``ChannelShuffle``                                        |
| ``padding.py``       | ``ZeroPad2d``, ``ReflectionPad1d``, ``CircularPad3d``, ... (``F.pad`` as a layer) |
| ``embedding.py``     | ``Embedding``                                               |
| ``embedding_bag.py`` | ``EmbeddingBag`` (a bag of lookups, summed, averaged or maxed) |
| ``rnn_cells.py``     | ``RNNCell``, ``LSTMCell``, ``GRUCell`` (one step of a recurrence) |
| ``rnn.py``           | ``RNN``, ``LSTM``, ``GRU`` (the step run along a sequence)  |
| ``parameter_container.py`` | ``ParameterList``, ``ParameterDict``                  |
| ``attention.py``     | ``MultiheadAttention``                                      |
| ``transformer.py``   | ``Transformer``, ``TransformerEncoder(Layer)``, ``TransformerDecoder(Layer)`` |
| ``loss.py``          | ``MSELoss``, ``L1Loss``, ``CrossEntropyLoss``, ``NLLLoss``, ``BCELoss``, ...  |
| ``sequence_losses.py`` | ``CTCLoss``, ``LinearCrossEntropyLoss``                    |
| ``regression_loss.py`` | ``HuberLoss``, ``SmoothL1Loss``, ``KLDivLoss``, ``PoissonNLLLoss``, ... |
| ``margin_loss.py``   | ``MarginRankingLoss``, ``TripletMarginLoss``, ``CosineEmbeddingLoss``, ... |
| ``init.py``          | ``nn.init``: ``kaiming_uniform_``, ``xavier_normal_``, ...  |
| ``functional/``      | ``nn.functional`` (``F``): the same operations as functions  |
| ``parallel/``        | ``nn.parallel``: ``DistributedDataParallel`` (gradients averaged across ranks) |
| ``utils/``           | ``nn.utils``: ``rnn.pad_sequence``, ``rnn.pack_padded_sequence``, ... |
"""

from minitorch.nn import functional, init, parallel, utils
from minitorch.nn.activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from minitorch.nn.activation_family import (
    CELU,
    ELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LogSigmoid,
    Mish,
    PReLU,
    ReLU6,
    RReLU,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
)  # fmt: skip
from minitorch.nn.adaptive_pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
)
from minitorch.nn.adaptive_softmax import AdaptiveLogSoftmaxWithLoss
from minitorch.nn.attention import MultiheadAttention
from minitorch.nn.bilinear import Bilinear
from minitorch.nn.channel_shuffle import ChannelShuffle
from minitorch.nn.container import ModuleDict, ModuleList, Sequential
from minitorch.nn.conv import Conv1d, Conv2d, Conv3d
from minitorch.nn.conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from minitorch.nn.distance import CosineSimilarity, PairwiseDistance
from minitorch.nn.dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from minitorch.nn.embedding import Embedding
from minitorch.nn.embedding_bag import EmbeddingBag
from minitorch.nn.fold import Fold, Unfold
from minitorch.nn.fractional_max_pooling import FractionalMaxPool2d, FractionalMaxPool3d
from minitorch.nn.linear import Flatten, Identity, Linear, Unflatten
from minitorch.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    NLLLoss2d,
)
from minitorch.nn.lp_pooling import LPPool1d, LPPool2d, LPPool3d
from minitorch.nn.margin_loss import (
    CosineEmbeddingLoss,
    HingeEmbeddingLoss,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from minitorch.nn.max_unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d
from minitorch.nn.module import Buffer, Module, Parameter
from minitorch.nn.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm
from minitorch.nn.padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)  # fmt: skip
from minitorch.nn.parameter_container import ParameterDict, ParameterList
from minitorch.nn.pooling import (
    AdaptiveAvgPool2d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
)
from minitorch.nn.regression_loss import GaussianNLLLoss, HuberLoss, KLDivLoss, PoissonNLLLoss, SmoothL1Loss
from minitorch.nn.rnn import GRU, LSTM, RNN, RNNBase
from minitorch.nn.rnn_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase
from minitorch.nn.sample_normalization import (
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LocalResponseNorm,
    RMSNorm,
)
from minitorch.nn.sequence_losses import CTCLoss, LinearCrossEntropyLoss
from minitorch.nn.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from minitorch.nn.upsampling import (
    PixelShuffle,
    PixelUnshuffle,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss",
    "BatchNorm1d", "BatchNorm2d", "Buffer", "Conv1d", "Conv2d", "CrossEntropyLoss", "Dropout",
    "Embedding", "Flatten", "GELU", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear",
    "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d", "Module", "ModuleDict", "ModuleList",
    "NLLLoss", "Parameter", "ReLU", "Sequential", "SiLU", "Sigmoid", "Softmax", "Tanh",
    "Unflatten", "functional", "init",
    "GRU", "GRUCell", "LSTM", "LSTMCell", "ParameterDict", "ParameterList", "RNN", "RNNBase",
    "RNNCell", "RNNCellBase", "parallel", "utils",
    "MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
    "TransformerEncoder", "TransformerEncoderLayer",
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "AlphaDropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout",
    "Bilinear", "ChannelShuffle", "CosineSimilarity", "PairwiseDistance",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d",
    "CELU", "ELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LogSigmoid",
    "Mish", "PReLU", "RReLU", "ReLU6", "SELU", "Softmax2d", "Softmin", "Softplus", "Softshrink",
    "Softsign", "Tanhshrink", "Threshold",
    "ConvTranspose1d", "ConvTranspose2d", "Conv3d", "MaxPool3d", "AvgPool3d", "BatchNorm3d",
    "ConvTranspose3d", "LPPool3d", "MaxUnpool3d",
    "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "RMSNorm",
    "GaussianNLLLoss", "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "SmoothL1Loss",
    "CosineEmbeddingLoss", "HingeEmbeddingLoss", "MarginRankingLoss", "MultiLabelSoftMarginLoss",
    "SoftMarginLoss", "TripletMarginLoss",
    "Fold", "PixelShuffle", "PixelUnshuffle", "Unfold", "Upsample", "UpsamplingBilinear2d",
    "UpsamplingNearest2d", "EmbeddingBag",
    "MultiLabelMarginLoss", "MultiMarginLoss", "TripletMarginWithDistanceLoss",
    "AdaptiveLogSoftmaxWithLoss", "CTCLoss", "FractionalMaxPool2d", "FractionalMaxPool3d",
    "LinearCrossEntropyLoss", "NLLLoss2d",
]  # fmt: skip
