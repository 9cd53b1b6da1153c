"""Scrub detectors on single strings: what is caught, and what must not be.

False positives matter as much as misses: an operator or kernel name that
looked like a path would be rewritten and the operator table would change.
"""

from __future__ import annotations

import pytest

from tui.scrub import detect
from tui.scrub.detect import EMAIL, HOST, PATH, SECRET, URL, USER


def kinds_in(text: str) -> list[tuple[str, str]]:
    return [(m.kind, m.value) for m in detect.resolve(detect.find_sensitive(text))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "/home/alice/proj/train.py(12): forward",
            [(PATH, "/home/alice/proj/train.py")],
        ),
        (
            "/tmp/libkineto_activities_1074.json",
            [(PATH, "/tmp/libkineto_activities_1074.json")],
        ),
        ("./logs/run.json", [(PATH, "./logs/run.json")]),
        ("~/notes.txt", [(PATH, "~/notes.txt")]),
        (r"C:\Users\bob\train.py", [(PATH, r"C:\Users\bob\train.py")]),
        (
            "ping bob.smith+x@corp.example.com now",
            [(EMAIL, "bob.smith+x@corp.example.com")],
        ),
        ("ghp_" + "a" * 36, [(SECRET, "ghp_" + "a" * 36)]),
        ("hf_" + "B" * 34, [(SECRET, "hf_" + "B" * 34)]),
        ("key sk-" + "c" * 40, [(SECRET, "sk-" + "c" * 40)]),
        ("AKIAABCDEFGHIJKLMNOP", [(SECRET, "AKIAABCDEFGHIJKLMNOP")]),
        ("--api_key=s3cr3tvalue", [(SECRET, "s3cr3tvalue")]),
        ("password: hunter2hunter2", [(SECRET, "hunter2hunter2")]),
        ("x=" + "ab12" * 10, [(SECRET, "ab12" * 10)]),
        (
            "Authorization: Bearer abcdefghijklmnop1234",
            [(SECRET, "abcdefghijklmnop1234")],
        ),
        ("devgpu109.atn2.facebook.com", [(HOST, "devgpu109.atn2.facebook.com")]),
        ("connect to 10.1.2.3 failed", [(HOST, "10.1.2.3")]),
        (
            "see https://u:p@host.example.com/x",
            [(URL, "https://u:p@host.example.com/x")],
        ),
        (
            "key -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3\n"
            "xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY----- end",
            [
                (
                    SECRET,
                    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3\n"
                    "xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY-----",
                )
            ],
        ),
        (
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            [(SECRET, "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC")],
        ),
        (
            "body MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
            [
                (
                    SECRET,
                    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
                )
            ],
        ),
        ("link up on 001a.2b3c.4d60 now", [(HOST, "001a.2b3c.4d60")]),
        ("mac 00:1A:2B:3C:4D:60", [(HOST, "00:1A:2B:3C:4D:60")]),
        ("mac 00-1a-2b-3c-4d-60", [(HOST, "00-1a-2b-3c-4d-60")]),
        ("~alice/data/x.pt", [(PATH, "~alice/data/x.pt")]),
        ("cd ~alice", [(USER, "alice")]),
    ],
)
def test_sensitive_strings_are_caught(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert kinds_in(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "aten::mm",
        "aten::_scaled_dot_product_efficient_attention",
        "Torch-Compiled Region: 0/0",
        "torch/nn/modules/module.py(1501): _call_impl",
        "Memcpy HtoD (Pageable -> Device)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
        "cudaLaunchKernel",
        "[param|pytorch.model.alex_net|0|0|0|warmup|forward]",
        "## forward:split_sparse_features ##",
        "<class '<torch_package_0>.dper3.modules.position_weighted.PositionWeighted'>",
        "2.17.1",
        "cuda:nccl",
        "a / b",
        "grid(100,)",
        "Tesla V100-SXM2-32GB",
        "cqaokwf2bph4egogzevc22vluasiyuui4i54zpemp6knbsggfbuu",
        "Record counts: Out-of-range = 0, Blocklisted runtime = 52",
        "<path-1>/torch/nn/modules/module.py",
        "--token=<secret-1>",
        "thread 1074 (pt_main_thread)",
        "std::vector<at::Tensor>::~vector()",
        "c10::intrusive_ptr<c10::TensorImpl>::~intrusive_ptr",
        "x ~= y",
        "2.17.1.post4",
        "MIIsmall",
    ],
)
def test_ordinary_trace_strings_are_left_alone(text: str) -> None:
    assert kinds_in(text) == []


def test_host_inside_a_url_is_reported_once_as_the_url() -> None:
    assert [kind for kind, _ in kinds_in("http://devgpu1.example.com:8080/x")] == [URL]


@pytest.mark.parametrize(
    ("path", "prefix", "rest"),
    [
        ("/home/alice/proj/model.py", "/home/alice/proj", "/model.py"),
        (
            "/home/alice/.venv/lib/python3.11/site-packages/torch/nn/functional.py",
            "/home/alice/.venv/lib/python3.11/site-packages",
            "/torch/nn/functional.py",
        ),
        ("/home/alice/", "/home/alice", "/"),
        ("~/x.py", "~", "/x.py"),
        (r"C:\Users\bob\x.py", r"C:\Users\bob", r"\x.py"),
    ],
)
def test_paths_keep_only_the_basename_or_package_path(
    path: str, prefix: str, rest: str
) -> None:
    assert detect.split_path(path) == (prefix, rest)


@pytest.mark.parametrize(
    ("path", "users"),
    [
        ("/home/alice/x.py", ["alice"]),
        ("/Users/bob/x.py", ["bob"]),
        ("/tmp/torchinductor_carol/qa/k.py", ["carol"]),
        ("/data/users/dave/set", ["dave"]),
        ("~erin/x.py", ["erin"]),
        ("/usr/lib/python3/x.py", []),
    ],
)
def test_paths_give_away_their_owner(path: str, users: list[str]) -> None:
    assert detect.users_in_path(path) == users


@pytest.mark.parametrize(
    "name",
    [
        "ProfilerStep#12",
        "lecture_batch_cpu",
        "transfert",
        "entrainement",
        "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
        "Optimizer.step#SGD.step",
        "Optimizer.zero_grad#Adagrad.zero_grad",
        "nccl:all_reduce",
        "gloo:barrier",
        "DistributedDataParallel.forward",
        "<zone-3>",
    ],
)
def test_known_zones_are_not_free_text(name: str) -> None:
    assert detect.is_known_zone(name)


@pytest.mark.parametrize(
    "name", ["## forward ##", "[param|cuda]", "my zone", "ProfilerStep"]
)
def test_free_form_zones_are_flagged(name: str) -> None:
    assert not detect.is_known_zone(name)


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("username", detect.USER),
        ("tw_user", detect.USER),
        ("host_name", detect.HOST),
        ("hostname", detect.HOST),
        ("tw_job", detect.METADATA),
        ("mast_job_name", detect.METADATA),
        ("trace_id", detect.METADATA),
        ("logical_server_subtype", detect.METADATA),
        ("External id", None),
        ("name", None),
    ],
)
def test_keys_declare_what_their_value_is(key: str, kind: str | None) -> None:
    assert detect.key_kind(key) == kind


@pytest.mark.parametrize("value", ["root", "ab", "12345", "localhost", "<user-1>"])
def test_generic_identity_values_are_not_hunted_in_free_text(value: str) -> None:
    assert not detect.huntable(detect.USER, value)


def test_host_short_name_is_hunted_with_the_full_name() -> None:
    assert detect.host_tokens("devgpu109.atn2.facebook.com") == [
        "devgpu109.atn2.facebook.com",
        "devgpu109",
    ]
