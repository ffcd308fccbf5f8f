"""Pairwise Word Interaction Modeling (He & Lin, NAACL 2016): the model only.

The pipeline of Figure 1, for a batch of sentence pairs:

1. Context modelling (Sec. 4, Eqs. 1-9): frozen pretrained word vectors run through one BiLSTM shared by both
   sentences (Figure 2). A standard LSTM, no peepholes. Each sentence is packed, so its backward direction starts
   at its own last word rather than in the padding.
2. Pairwise word interactions (Sec. 5, Eq. 10, Algorithm 1): every word state of sentence 1 is compared with every
   word state of sentence 2 by coU = (cosine, L2 distance, dot product) on four views of the states (bi, forward,
   backward, forward + backward), giving 12 channels plus a 13th indicator channel that is 1 on real word pairs:
   the similarity cube (B x 13 x P x P), zero-padded to the padding length P (Sec. 7).
3. Similarity focus layer (Sec. 6, Algorithm 2): a non-differentiable mask that keeps weight 1 on the word pairs
   picked greedily (each word at most once per pass) by the cosine and then by the L2 distance of the summed
   states, and 0.1 elsewhere; focusCube = mask * simCube, so gradients flow through the cube scaled by the mask.
4. Similarity classification (Sec. 7, Table 1): the focus cube is a 13-channel P x P image for a 19-layer deep
   ConvNet (five conv/ReLU/max-pool blocks, two fully connected layers, log-softmax over the score classes).

Ablations of Table 8: ``context=False`` (no BiLSTM, the word vectors stand in for both directions) and
``focus=False`` (focusCube = simCube). Table 9's "1.7 million" tunable parameters is matched by
:meth:`PairwiseWordInteraction.parameter_count` with hidden 250 and 50-dimensional word vectors (1.66 M with
5 classes); 300-dimensional ones, as the paper used, give 2.16 M.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

CHANNELS = 13
INDICATOR_CHANNEL = 12
# Channels of the forward+backward ("add") view that Algorithm 2 ranks by (the paper's 1-based channels 10, 11).
ADD_COSINE_CHANNEL = 9
ADD_DISTANCE_CHANNEL = 10

UNIMPORTANT_WEIGHT = 0.1
PADDINGS = (32, 48)

# Inside the square roots of the norms and distances: sqrt has an infinite slope at 0, and a zero state (an
# all-zero word vector without context modelling) or two identical states (distance 0) are ordinary inputs.
_EPS = 1e-6


def _real_pairs(lengths1: Tensor, lengths2: Tensor, rows: int, cols: int) -> Tensor:
    """(B, rows, cols) bool: True where t < len1 and s < len2."""
    real1 = torch.arange(rows, device=lengths1.device) < lengths1[:, None]
    real2 = torch.arange(cols, device=lengths2.device) < lengths2[:, None]
    return real1[:, :, None] & real2[:, None, :]


def _comparison_unit(dot: Tensor, squared_norm1: Tensor, squared_norm2: Tensor) -> list[Tensor]:
    """coU (Eq. 10) of all pairs from their dot products (B, L1, L2) and squared norms (B, L1), (B, L2)."""
    norms = torch.sqrt(squared_norm1 + _EPS)[:, :, None] * torch.sqrt(squared_norm2 + _EPS)[:, None, :]
    cosine = dot / norms
    # ||a - b||^2 from the matmul; rounding can take it just below 0 for (near-)identical states.
    squared_distance = (squared_norm1[:, :, None] + squared_norm2[:, None, :] - 2 * dot).clamp_min(0)
    distance = torch.sqrt(squared_distance + _EPS)
    return [cosine, distance, dot]


def similarity_cube(states1: Tensor, states2: Tensor, lengths1: Tensor, lengths2: Tensor, *, hidden: int,
                    padding: int) -> Tensor:
    """Algorithm 1: the (B, 13, padding, padding) similarity cube of BiLSTM states (B, L, 2*hidden).

    Channels 0-2, 3-5, 6-8, 9-11 hold coU of the bi, forward, backward and forward+backward states; channel 12
    is 1 (the padding indicator). Cells outside t < len1, s < len2 are 0 in all channels, the real block sits in
    the top-left corner. States past a sentence's length are never read.
    """
    if states1.shape[-1] != 2 * hidden or states2.shape[-1] != 2 * hidden:
        raise ValueError(f"states must have 2 * hidden = {2 * hidden} features, got {states1.shape[-1]} and "
                         f"{states2.shape[-1]}")
    if states1.shape[1] > padding or states2.shape[1] > padding:
        raise ValueError(f"sentences of {states1.shape[1]} and {states2.shape[1]} steps exceed padding {padding}")
    lengths1 = lengths1.to(states1.device)
    lengths2 = lengths2.to(states1.device)
    batch, rows, cols = states1.shape[0], states1.shape[1], states2.shape[1]

    forward1, backward1 = states1[..., :hidden], states1[..., hidden:]
    forward2, backward2 = states2[..., :hidden], states2[..., hidden:]
    # The three h-dimensional views in one batched matmul; the bi view is their concatenation, so its dot
    # products and squared norms are sums of the forward and backward ones.
    views1 = torch.stack([forward1, backward1, forward1 + backward1], 1).flatten(0, 1)  # (B*3, L1, h)
    views2 = torch.stack([forward2, backward2, forward2 + backward2], 1).flatten(0, 1)
    dots = torch.bmm(views1, views2.transpose(1, 2)).view(batch, 3, rows, cols)
    squared1 = views1.pow(2).sum(-1).view(batch, 3, rows)
    squared2 = views2.pow(2).sum(-1).view(batch, 3, cols)

    channels = _comparison_unit(dots[:, 0] + dots[:, 1], squared1[:, 0] + squared1[:, 1],
                                squared2[:, 0] + squared2[:, 1])
    for view in range(3):
        channels += _comparison_unit(dots[:, view], squared1[:, view], squared2[:, view])
    channels.append(torch.ones_like(dots[:, 0]))

    real = _real_pairs(lengths1, lengths2, rows, cols)[:, None]
    # where(), not a product with the indicator: states past a length are not assumed to be zero.
    cube = torch.where(real, torch.stack(channels, 1), torch.zeros((), dtype=dots.dtype, device=dots.device))
    return F.pad(cube, (0, padding - cols, 0, padding - rows))


def _greedy_one_to_one(scores: Tensor, picks: int) -> Tensor:
    """(B, R, C) bool of the cells Algorithm 2's loop marks when ``scores`` are sorted in decreasing order.

    Walking the sorted list and keeping a cell only when neither its row nor its column is taken is the same as
    taking the best remaining cell and striking out its row and column, repeated until a sentence runs out of
    words. torch.argmax returns the first maximum in row-major order, which is where a stable sort puts ties.
    Cells that may never be picked must be -inf in ``scores``.
    """
    batch, rows, cols = scores.shape
    remaining = scores.clone()
    chosen = torch.zeros_like(scores, dtype=torch.bool)
    batch_index = torch.arange(batch, device=scores.device)
    for _ in range(picks):
        best = remaining.flatten(1).argmax(1)
        row, col = best // cols, best % cols
        # A sentence pair whose shorter sentence is used up only has -inf left: nothing to mark.
        live = torch.isfinite(remaining[batch_index, row, col])
        chosen[batch_index, row, col] |= live
        remaining[batch_index, row, :] = float("-inf")
        remaining[batch_index, :, col] = float("-inf")
    return chosen


@torch.no_grad()
def focus_mask(cube: Tensor, lengths1: Tensor, lengths2: Tensor) -> Tensor:
    """Algorithm 2: the (B, 13, P, P) weights of the similarity focus layer; focusCube = mask * cube.

    Two greedy passes pick word pairs, no word twice within a pass: by decreasing cosine of the summed states
    (channel 9), then by increasing L2 distance of the summed states (channel 10). Picked cells get 1 in every
    channel, the rest 0.1, and the indicator channel 12 is 1 everywhere. Outside the real t < len1, s < len2
    block the weights stay 0.1 (1 on the indicator); the cube is 0 there, so they are never seen.
    No gradient: the paper's backward pass multiplies the inflowing gradient by this mask, which is what
    autograd does with a constant mask.
    """
    cube = cube.detach()
    batch, _, rows, cols = cube.shape
    lengths1 = lengths1.to(cube.device)
    lengths2 = lengths2.to(cube.device)
    real = _real_pairs(lengths1, lengths2, rows, cols)
    picks = int(torch.minimum(lengths1, lengths2).clamp(max=min(rows, cols)).max())
    unusable = torch.tensor(float("-inf"), dtype=cube.dtype, device=cube.device)

    by_cosine = torch.where(real, cube[:, ADD_COSINE_CHANNEL], unusable)
    # The paper only says "sort" for L2 too, but the most similar pair is the one at the smallest distance, so
    # the pass ranks by increasing distance, i.e. by decreasing negated distance.
    by_distance = torch.where(real, -cube[:, ADD_DISTANCE_CHANNEL], unusable)
    important = _greedy_one_to_one(by_cosine, picks) | _greedy_one_to_one(by_distance, picks)

    mask = torch.full_like(cube, UNIMPORTANT_WEIGHT)
    mask.masked_fill_(important[:, None], 1.0)
    mask[:, INDICATOR_CHANNEL] = 1.0
    return mask


class DeepConvNet(nn.Module):
    """Table 1: the 19-layer ConvNet that classifies the focus cube as a 13-channel padding x padding image.

    Five blocks of 3x3 convolution (stride 1, pad 1, keeping the resolution), ReLU and max pooling, with
    13 -> 128 -> 164 -> 192 -> 192 -> 128 channels. The pools halve the image; only the last one differs between
    the two configurations, so that both end at 1x1: 32 -> 16 -> 8 -> 4 -> 2 -> 1 with a 2x2 stride-2 pool, and
    48 -> 24 -> 12 -> 6 -> 3 -> 1 with a 3x3 stride-1 pool. Then fully connected, ReLU, fully connected and
    log-softmax.
    """

    WIDTHS = (128, 164, 192, 192, 128)

    def __init__(self, padding: int, classes: int, fc_dim: int = 128):
        super().__init__()
        if padding not in PADDINGS:
            raise ValueError(f"padding must be one of {PADDINGS} (Table 1), got {padding}")
        self.padding = padding
        layers: list[nn.Module] = []
        in_channels = CHANNELS
        for block, out_channels in enumerate(self.WIDTHS):
            last = block == len(self.WIDTHS) - 1
            pool = nn.MaxPool2d(3, stride=1) if last and padding == 48 else nn.MaxPool2d(2, stride=2)
            layers += [nn.Conv2d(in_channels, out_channels, 3, stride=1, padding=1), nn.ReLU(), pool]
            in_channels = out_channels
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(in_channels, fc_dim), nn.ReLU(), nn.Linear(fc_dim, classes))

    def forward(self, cube: Tensor) -> Tensor:
        """(B, 13, P, P) focus cube -> (B, classes) log-probabilities."""
        if cube.shape[1:] != (CHANNELS, self.padding, self.padding):
            raise ValueError(f"expected a (B, {CHANNELS}, {self.padding}, {self.padding}) cube, got "
                             f"{tuple(cube.shape)}")
        return F.log_softmax(self.classifier(self.features(cube).flatten(1)), dim=-1)


class PairwiseWordInteraction(nn.Module):
    """The full model of Figure 1: frozen embeddings, shared BiLSTM, similarity cube, focus layer, deep ConvNet.

    ``context=False`` is Table 8's "remove context modeling": there is no BiLSTM, and each word vector x stands in
    for both its forward and its backward state, so the four coU views become [x; x], x, x and 2x (hidden = d).
    That keeps the cube's 13 channels and the ConvNet unchanged, which is what removing one component at a time
    needs. ``focus=False`` is "remove entire focus layer": the ConvNet sees the similarity cube itself.
    Sentences longer than ``padding`` tokens are cut to their first ``padding`` tokens before the BiLSTM (Sec. 7).
    """

    def __init__(self, embeddings: Tensor, classes: int, *, hidden_dim: int = 250, padding: int = 32,
                 context: bool = True, focus: bool = True, fc_dim: int = 128):
        super().__init__()
        if embeddings.dim() != 2:
            raise ValueError(f"embeddings must be (V, d), got shape {tuple(embeddings.shape)}")
        # "We did not update word embeddings in all experiments" (Sec. 8); id 0 is <pad>.
        self.embedding = nn.Embedding.from_pretrained(embeddings, freeze=True, padding_idx=0)
        embedding_dim = embeddings.shape[1]
        self.padding = padding
        self.context = context
        self.focus = focus
        if context:
            self.hidden = hidden_dim
            self.lstm: nn.LSTM | None = nn.LSTM(embedding_dim, hidden_dim, batch_first=True, bidirectional=True)
        else:
            self.hidden = embedding_dim
            self.lstm = None
        self.convnet = DeepConvNet(padding, classes, fc_dim)

    def parameter_count(self) -> int:
        """Trainable parameters (Table 9); the frozen embeddings are not among them."""
        return sum(parameter.numel() for parameter in self.parameters() if parameter.requires_grad)

    def _check(self, tokens: Tensor, lengths: Tensor, name: str) -> None:
        if tokens.dim() != 2 or lengths.shape != (tokens.shape[0],):
            raise ValueError(f"{name}: expected tokens (B, L) and lengths (B,), got {tuple(tokens.shape)} and "
                             f"{tuple(lengths.shape)}")
        if lengths.numel() and (int(lengths.min()) < 1 or int(lengths.max()) > tokens.shape[1]):
            raise ValueError(f"{name}: lengths must lie in [1, {tokens.shape[1]}], got {lengths.tolist()}")

    def contextual_states(self, tokens: Tensor, lengths: Tensor) -> Tensor:
        """(N, L, 2*hidden) states, forward half first; zero past each sentence's length. ``lengths`` <= L."""
        vectors = self.embedding(tokens)
        if self.lstm is None:
            real = torch.arange(tokens.shape[1], device=tokens.device) < lengths.to(tokens.device)[:, None]
            vectors = vectors * real[..., None]
            return torch.cat([vectors, vectors], -1)
        # Packing needs the lengths on the CPU; it makes the backward direction start at each true last word.
        packed = pack_padded_sequence(vectors, lengths.cpu(), batch_first=True, enforce_sorted=False)
        states, _ = self.lstm(packed)
        states, _ = pad_packed_sequence(states, batch_first=True, total_length=tokens.shape[1])
        return states

    def forward(self, tokens1: Tensor, lengths1: Tensor, tokens2: Tensor, lengths2: Tensor) -> Tensor:
        """Right-padded token ids (B, L1), (B, L2) and their lengths (B,) -> (B, classes) log-probabilities."""
        self._check(tokens1, lengths1, "sentence 1")
        self._check(tokens2, lengths2, "sentence 2")
        if tokens1.shape[0] != tokens2.shape[0]:
            raise ValueError(f"batch sizes differ: {tokens1.shape[0]} and {tokens2.shape[0]}")
        batch = tokens1.shape[0]
        lengths1 = lengths1.clamp(max=self.padding)
        lengths2 = lengths2.clamp(max=self.padding)
        # Trimming to the longest real sentence also makes the output blind to extra right padding.
        steps1, steps2 = int(lengths1.max()), int(lengths2.max())
        tokens1, tokens2 = tokens1[:, :steps1], tokens2[:, :steps2]

        # Both sentences of every pair in one call of the shared BiLSTM.
        steps = max(steps1, steps2)
        tokens = torch.cat([F.pad(tokens1, (0, steps - steps1)), F.pad(tokens2, (0, steps - steps2))])
        states = self.contextual_states(tokens, torch.cat([lengths1, lengths2]))
        states1, states2 = states[:batch, :steps1], states[batch:, :steps2]

        cube = similarity_cube(states1, states2, lengths1, lengths2, hidden=self.hidden, padding=self.padding)
        if self.focus:
            cube = cube * focus_mask(cube, lengths1, lengths2)
        return self.convnet(cube)
