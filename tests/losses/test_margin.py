import torch
import torch.nn.functional as F

from paraphrastic.losses.margin import hardest_negatives, margin_loss, random_negatives


def brute_force_loss(g1, g2, margin):
    pool = torch.cat([g1, g2])
    n = g1.shape[0]
    total = 0.0
    for i in range(n):
        pos = F.cosine_similarity(g1[i], g2[i], dim=0)
        terms = []
        for side in (g1[i], g2[i]):
            candidates = [j for j in range(2 * n) if j % n != i]
            sims = torch.stack([F.cosine_similarity(side, pool[j], dim=0) for j in candidates])
            terms.append(torch.relu(margin - pos + sims.max()))
        total += terms[0] + terms[1]
    return total / n


def test_margin_loss_equals_the_per_pair_definition():
    torch.manual_seed(0)
    g1, g2 = torch.randn(7, 5), torch.randn(7, 5)
    torch.testing.assert_close(margin_loss(g1, g2, 0.4), brute_force_loss(g1, g2, 0.4))


def test_negatives_never_come_from_the_own_pair():
    g1 = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    g2 = g1.clone()  # every sentence's nearest neighbour is its own paraphrase
    n1, n2 = hardest_negatives(g1, g2)
    assert all(int(j) % 3 != i for i, j in enumerate(n1))
    assert all(int(j) % 3 != i for i, j in enumerate(n2))


def test_loss_is_zero_when_pairs_are_separated_by_the_margin():
    g1 = torch.eye(4)
    assert margin_loss(g1, g1.clone(), 0.8).item() == 0.0


def test_random_negatives_are_uniform_over_other_pairs():
    g = torch.Generator().manual_seed(0)
    batch = 4
    counts = torch.zeros(2 * batch, 2 * batch)
    for _ in range(3000):
        n1, n2 = random_negatives(torch.zeros(batch, 3), g)
        for row, col in enumerate(torch.cat([n1, n2]).tolist()):
            counts[row, col] += 1
    own = torch.arange(2 * batch) % batch
    same_pair = own.unsqueeze(0) == own.unsqueeze(1)
    assert counts[same_pair].sum() == 0
    allowed = counts[~same_pair]
    assert allowed.min() > 0.6 * allowed.mean() and allowed.max() < 1.4 * allowed.mean()


def test_mix_and_rand_losses_are_reproducible_with_a_generator():
    torch.manual_seed(1)
    g1, g2 = torch.randn(6, 4), torch.randn(6, 4)
    for sampling in ("mix", "rand"):
        a = margin_loss(g1, g2, 0.4, sampling=sampling, generator=torch.Generator().manual_seed(3))
        b = margin_loss(g1, g2, 0.4, sampling=sampling, generator=torch.Generator().manual_seed(3))
        assert a == b
    # RAND never beats MAX: the hardest negative is at least as similar as any other
    assert margin_loss(g1, g2, 0.4, sampling="rand", generator=torch.Generator().manual_seed(3)) <= \
        margin_loss(g1, g2, 0.4, sampling="max")


