"""Counting prompt work (authbench.plan.count): common prefixes, whole-block
prefix reuse and its hosted rule, the character proxy."""

import pytest

from authbench.plan.count import CharTokens, common_prefix, reusable, reuse_rule


def test_common_prefix_by_hand():
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([], [1]) == 0
    long = list(range(200))
    assert common_prefix(long, long[:150] + [-1]) == 150  # past the 64-token strides
    assert common_prefix(long, long) == 200


@pytest.mark.parametrize("previous, tokens, block, minimum, expected", [
    (None, [1] * 100, 32, 0, 0),                   # the first prompt reuses nothing
    ([1] * 100, [1] * 100, 32, 0, 96),             # identical: at most len - 1 = 99, whole blocks: 96
    ([1] * 40, [1] * 100, 32, 0, 32),              # the previous prompt filled one whole block (32 of 40)
    ([1] * 70 + [2], [1] * 70 + [3] * 30, 32, 0, 64),  # 70 common -> 2 blocks
    ([1] * 70 + [2], [1] * 70 + [3] * 30, 16, 0, 64),  # 70 common -> 4 blocks of 16
    ([1] * 31 + [2], [1] * 31 + [3], 32, 0, 0),    # less than one block in common
    ([5, 6], [5], 1, 0, 0),                        # a one-token prompt evaluates its token
    ([1] * 1100 + [2], [1] * 1100 + [3], 128, 1024, 1024),  # 1,100 common -> 8 steps of 128 = 1,024
    ([1] * 1000 + [2], [1] * 1000 + [3], 128, 1024, 0),     # 896 in whole steps: below the hosted minimum
])
def test_reusable_whole_blocks(previous, tokens, block, minimum, expected):
    assert reusable(previous, tokens, block, minimum) == expected


def test_reuse_rule_of_each_engine_and_of_a_hosted_api():
    assert reuse_rule({"engine": "llamacpp"}, False) == (32, 0)
    assert reuse_rule({"engine": "vllm"}, False) == (16, 0)
    assert reuse_rule({"engine": "openai"}, False) == (16, 0)  # a vLLM server of one's own
    assert reuse_rule({"engine": "openai"}, True) == (128, 1024)


def test_char_proxy_counts_four_characters_a_token():
    chars = CharTokens("test")
    assert len(chars.prompt_tokens("x" * 10, chat=False)) == 3  # ceil(10 / 4)
    assert chars.decode(chars.encode("abcdefg")) == "abcdefg"
