"""Hosted models and their dollars (authbench.plan.prices,
authbench.config.is_hosted/check_hosting): what is hosted, the named config
errors, and dollars against hand-computed values."""

import pytest

from authbench.config import check_hosting, is_hosted, validate_schema
from authbench.errors import ConfigError
from authbench.plan.count import Tally
from authbench.plan.prices import Price, dollars, price_of, usd
from authbench.plan.sample import Estimate


def _openai(url, **extra):
    return {"engine": "openai", "model": "x", "openai": {"base_url": url}, **extra}


@pytest.mark.parametrize("spec, hosted", [
    (_openai("https://api.openai.com/v1"), True),
    (_openai("http://127.0.0.1:8000/v1"), False),
    (_openai("http://localhost:8000/v1"), False),
    (_openai("http://[::1]:8000/v1"), False),
    (_openai("http://gpu-node-3:8000/v1", hosted=False), False),  # a vLLM server of one's own, said so
    ({"engine": "vllm", "model": "x"}, False),
])
def test_what_is_hosted(spec, hosted):
    assert is_hosted(spec) is hosted


def _config(**models):
    return {"models": models}


def test_a_price_on_a_model_that_is_not_hosted_is_a_named_error():
    with pytest.raises(ConfigError, match=r"models\.q\.price'.*not hosted"):
        check_hosting(_config(q={"engine": "vllm", "model": "x", "price": {"input": 1, "output": 2}}))


def test_a_hosted_model_with_a_rate_is_a_named_error():
    with pytest.raises(ConfigError, match=r"models\.g\.rate'.*is hosted"):
        check_hosting(_config(g=_openai("https://api.openai.com/v1", rate={"prompt": 1, "completion": 1})))


def test_hosted_is_for_the_openai_engine_only():
    with pytest.raises(ConfigError, match=r"models\.v\.hosted'"):
        check_hosting(_config(v={"engine": "vllm", "model": "x", "hosted": True}))


@pytest.mark.parametrize("price", [{"input": 0, "output": 1}, {"input": -1, "output": 1},
                                   {"input": "cheap", "output": 1}])
def test_a_price_that_is_not_a_positive_number_is_a_named_error(price):
    import yaml
    from pathlib import Path

    config = yaml.safe_load((Path(__file__).resolve().parents[3] / "config.yaml").read_text())
    config["models"]["g"] = _openai("https://api.openai.com/v1", price=price)
    with pytest.raises(ConfigError, match=r"config key 'models\.g\.price\.input'"):
        validate_schema(config)


def _tally():
    # 2,000,000 prompt tokens (var 1e8), 500,000 of them reused (var 4e6); 300,000 completion at the estimate
    return Tally(prompt=Estimate(2_000_000, 1e8), reused=Estimate(500_000, 4e6), evaluated=Estimate(1_500_000, 9e7),
                 completion=300_000, completion_budget=1_000_000)


def test_dollars_by_hand():
    t = _tally()
    plain = dollars(t, Price(0.5, 1.5))
    assert plain.total == pytest.approx(2 * 0.5 + 0.3 * 1.5)  # $1.45
    assert plain.var == pytest.approx(1e8 * (0.5 / 1e6) ** 2)  # sd 10,000 tokens x $0.5/M = $0.005
    cached = dollars(t, Price(0.15, 0.6, cached_input=0.075))
    assert cached.total == pytest.approx(1.5 * 0.15 + 0.5 * 0.075 + 0.3 * 0.6)  # 0.225 + 0.0375 + 0.18 = $0.4425
    sd = (0.15 * 9e7 ** 0.5 + 0.075 * 4e6 ** 0.5) / 1e6
    assert cached.var == pytest.approx(sd * sd)
    assert dollars(t, Price(0.5, 1.5), at_cap=True).total == pytest.approx(1.0 + 1.5)  # 1M completion at the cap
    assert dollars(t, Price(0.5, 1.5, batch_input=0.25, batch_output=0.75), batch=True).total == pytest.approx(0.725)
    assert dollars(t, Price(0.5, 1.5), batch=True) is None
    assert usd(plain) == "$1.45 ± 0.01" and usd(None) == "–"


def test_price_of_a_model():
    assert price_of({"engine": "openai"}) is None
    p = price_of({"price": {"input": 0.1, "output": 0.4, "batch_input": 0.05, "batch_output": 0.2, "source": "s"}})
    assert p == Price(0.1, 0.4, None, 0.05, 0.2, "s")
