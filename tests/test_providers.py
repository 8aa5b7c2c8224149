"""Who received a request: one table, by URL host, default port and model name, read by the
severity of every rule and by the --target profiles."""

import pytest

from tooldbg.formats.profiles import PROFILES
from tooldbg.formats.providers import PROVIDERS, by_target, claude, identify


@pytest.mark.parametrize(("url", "model", "key", "how"), [
    ("https://api.deepseek.com/chat/completions", "deepseek-reasoner", "deepseek", "the URL host api.deepseek.com"),
    ("https://api.moonshot.cn/v1/chat/completions", None, "kimi", "the URL host api.moonshot.cn"),
    ("https://api.moonshot.ai/v1/chat/completions", None, "kimi", "the URL host api.moonshot.ai"),
    ("https://api.x.ai/v1/chat/completions", None, "xai", "the URL host api.x.ai"),
    ("https://api.groq.com/openai/v1/chat/completions", None, "groq", "the URL host api.groq.com"),
    ("https://api.together.xyz/v1/chat/completions", None, "together", "the URL host api.together.xyz"),
    ("https://codestral.mistral.ai/v1/chat/completions", None, "mistral", "the URL host codestral.mistral.ai"),
    ("https://my-res.openai.azure.com/openai/deployments/gpt4/chat/completions", None, "openai",
     "the URL host my-res.openai.azure.com"),
    ("https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/l/publishers/google/models/"
     "gemini-3-pro-preview:generateContent", None, "gemini", "the URL host us-east5-aiplatform.googleapis.com"),
    ("https://bedrock-runtime.eu-west-1.amazonaws.com/model/x/converse", None, "bedrock",
     "the URL host bedrock-runtime.eu-west-1.amazonaws.com"),
    # a router serves every vendor's models: the host says who answered, not the model's name
    ("https://openrouter.ai/api/v1/chat/completions", "anthropic/claude-sonnet-4.5", "openrouter",
     "the URL host openrouter.ai"),
    # self-hosted servers, by their default ports only
    ("http://gpu-box-03.internal:8000/v1/responses", "openai/gpt-oss-120b", "vllm", "port 8000, vLLM's default"),
    ("http://127.0.0.1:30000/v1/chat/completions", "Qwen/Qwen3-8B", "sglang", "port 30000, SGLang's default"),
    ("http://localhost:11434/v1/chat/completions", "qwen3:8b", "ollama", "port 11434, Ollama's default"),
    # a relay of unknown name: the model's own API id says who is behind it
    ("http://llm-gateway.internal/v1/messages", "claude-sonnet-4-5", "anthropic", "the model claude-sonnet-4-5"),
    (None, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock",
     "the model us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
    (None, "o3-mini", "openai", "the model o3-mini"),
    (None, "kimi-k2-thinking", "kimi", "the model kimi-k2-thinking"),
])
def test_a_request_is_told_by_its_host_its_port_or_its_model(url, model, key, how):
    found = identify(url, model)
    assert found is not None and (found.provider.key, found.how) == (key, how)


@pytest.mark.parametrize(("url", "model"), [
    ("http://llm-gateway.internal:8080/v1/chat/completions", "openai/gpt-oss-20b"),  # open weights
    (None, "gpt-oss-120b"),
    (None, "Qwen/Qwen3-32B"),
    ("http://[::1:bad/v1", None),  # a URL that does not parse
    (None, None),
])
def test_open_weights_and_unknown_hosts_name_no_provider(url, model):
    assert identify(url, model) is None


def test_the_target_profiles_are_the_providers_with_a_profile_of_their_own():
    assert PROFILES == {"mistral": "openai-chat", "deepseek": "openai-chat", "kimi": "openai-chat"}
    assert {p.key for p in PROVIDERS} >= {"deepseek", "kimi", "xai", "groq", "openrouter", "mistral", "together",
                                         "vllm", "sglang"}


@pytest.mark.parametrize(("target", "key"), [("deepseek", "deepseek"), ("kimi", "kimi"), ("mistral", "mistral"),
                                             ("anthropic", "anthropic"), ("openai-responses", "openai"),
                                             ("bedrock", "bedrock"), ("gemini", "gemini")])
def test_a_target_names_the_provider_it_judges_for(target, key):
    found = by_target(target)
    assert found is not None and found.provider.key == key and found.how == f"--target {target}"
    assert found.provider.target("openai-chat" if key in ("deepseek", "kimi", "mistral") else target) == target


def test_claude_models_are_told_by_any_providers_name_for_them():
    assert claude("claude-opus-4-6") and claude("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert not claude("gemini-3-pro-preview") and not claude(None)
