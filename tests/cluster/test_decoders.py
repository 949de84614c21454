"""lightkube from several threads: after `prepare_for_threads`, threads decoding the same
models for the first time at once do not crash the interpreter (msgspec publishes a
class's type information before it is complete)."""

import subprocess
import sys

SCRIPT = """
import threading
from kubeproof.cluster.decoders import prepare_for_threads
from lightkube.codecs import from_dict
from lightkube.config.kubeconfig import KubeConfig

prepare_for_threads()
deployment = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x", "namespace": "y"},
    "spec": {"selector": {"matchLabels": {"a": "b"}},
             "template": {"metadata": {"labels": {"a": "b"}},
                          "spec": {"containers": [{"name": "c", "image": "i"}]}}},
}
config = {
    "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
    "users": [{"name": "u", "user": {"token": "t"}}],
    "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
    "current-context": "x",
}
barrier = threading.Barrier(4)
names = []

def decode():
    barrier.wait()
    names.append(from_dict(deployment).metadata.name)
    KubeConfig.from_dict(config)

threads = [threading.Thread(target=decode) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(",".join(names))
"""


def test_threads_decoding_the_same_models_at_once_after_preparation():
    for _ in range(5):  # unprepared, this crashes nearly every time
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "x,x,x,x"
