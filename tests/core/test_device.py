import pytest
import torch

from posenc_core import device as device_module
from posenc_core._checks import check_choice, check_float, check_float_dtype, check_int


def test_auto_picks_the_best_available_device():
    expected = "cuda" if torch.cuda.is_available() else ("mps" if device_module._mps_available() else "cpu")
    assert device_module.resolve_device("auto").type == expected
    assert device_module.resolve_device(None).type == expected
    assert device_module.available_devices()[-1] == "cpu"


def test_explicit_devices_pass_through():
    assert device_module.resolve_device("cpu") == torch.device("cpu")
    assert device_module.resolve_device(torch.device("cpu")) == torch.device("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_unavailable_cuda_is_a_clear_error():
    with pytest.raises(ValueError, match="not available.*available: .*cpu"):
        device_module.resolve_device("cuda")


@pytest.mark.parametrize("bad", ["tpu", 3, "gpu"])
def test_unknown_device_names_the_choices(bad):
    with pytest.raises(ValueError, match="device must be one of"):
        device_module.resolve_device(bad)


def test_checks_name_the_argument_and_the_allowed_range():
    with pytest.raises(ValueError, match=r"n_heads must be an integer >= 1 \(got 0\)"):
        check_int("n_heads", 0, minimum=1)
    with pytest.raises(ValueError, match=r"base must be a finite number > 1 \(got nan\)"):
        check_float("base", float("nan"), greater_than=1)
    with pytest.raises(ValueError, match=r"factor must be a finite number <= 64"):
        check_float("factor", 65, maximum=64)
    with pytest.raises(ValueError, match="layout must be one of 'half', 'interleaved'"):
        check_choice("layout", "spiral", ("half", "interleaved"))
    with pytest.raises(ValueError, match="dtype"):
        check_float_dtype(torch.float16)
    assert check_int("n", 4.0) == 4
    assert check_float("x", 3) == 3.0
