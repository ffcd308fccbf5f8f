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


def test_negatives_come_from_another_pair_while_one_has_a_positive_cosine():
    g1 = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    g2 = g1.clone()  # every sentence's nearest neighbour is its own paraphrase
    n1, n2 = hardest_negatives(g1, g2)
    assert all(int(j) % 3 != i for i, j in enumerate(n1))
    assert all(int(j) % 3 != i for i, j in enumerate(n2))


def test_a_sentence_whose_every_candidate_has_a_negative_cosine_gets_its_pairs_first_sentence_as_theirs_does():
    g1 = torch.tensor([[1.0, 0.0], [-1.0, 0.1], [-1.0, -0.1]])
    g2 = g1.clone()
    n1, n2 = hardest_negatives(g1, g2)
    # pair 0's sentences have cosines below 0 with every other pair's: their utils.get_pairs_fast's distance 1 for
    # the own pair wins, and of the two the first in their order, the pair's first sentence (index 0)
    assert n1[0] == 0 and n2[0] == 0
    assert n1[1] in (2, 5) and n2[1] in (2, 5)


def test_ties_go_to_the_first_candidate_in_their_order():
    # for g1_2, g2_0 and g1_1 tie: in cat[g1, g2] g1_1 (index 1) comes first, in theirs (pair by pair) g2_0 (index 3)
    g1 = torch.tensor([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    g2 = torch.tensor([[1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    n1, n2 = hardest_negatives(g1, g2)
    assert n1[2] == 3 and n2[2] == 3


def test_loss_is_zero_when_pairs_are_separated_by_the_margin():
    g1 = torch.eye(4) + 0.05  # other pairs at a small positive cosine: theirs, not the own pair, are the negatives
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


