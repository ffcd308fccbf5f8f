from paraphrastic.data.tokenize import tokenize


def test_ptb_tokenization_and_lowercase():
    assert tokenize('He said "don\'t go." Then left.') == \
        ["he", "said", "``", "do", "n't", "go", ".", "''", "then", "left", "."]


def test_hashtags_lose_their_leading_hash():
    assert tokenize("Loving #NBA finals #") == ["loving", "nba", "finals", "#"]


def test_pretokenized_text_is_split_and_unescaped():
    assert tokenize("The `` navigation computer '' -LRB- rate\\/time -RRB- , 3\\*4", pretokenized=True) == \
        ["the", "``", "navigation", "computer", "''", "(", "rate/time", ")", ",", "3*4"]


def test_sentence_internal_periods_split_but_abbreviations_kept():
    assert tokenize("Mr. Smith went to Washington. He left at 5 p.m. today.") == \
        ["mr.", "smith", "went", "to", "washington", ".", "he", "left", "at", "5", "p.m.", "today", "."]
    assert tokenize("The U.S. economy grew 3.5%.") == ["the", "u.s.", "economy", "grew", "3.5", "%", "."]
