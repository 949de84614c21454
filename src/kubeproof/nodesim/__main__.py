"""`python -m kubeproof.nodesim --state-dir DIR`: the node simulator of one embedded
cluster, started and supervised by the cluster like its other components."""

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path

from kubeproof.nodesim import catalog, profile
from kubeproof.nodesim.kubelet import Kubelet
from kubeproof.nodesim.nodes import KUBELET_PORT
from kubeproof.nodesim.server import KubeletServer


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m kubeproof.nodesim")
    parser.add_argument("--state-dir", required=True, type=Path)
    args = parser.parse_args()
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    state = args.state_dir
    specs = profile.load(state / "nodes.yaml").expand()
    models = catalog.shipped()
    extra = state / "images.yaml"
    if extra.exists():
        models = models.merged(catalog.load(extra))
    kubelet = Kubelet(state, specs, models)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        await KubeletServer(kubelet).start(
            kubelet.address,
            KUBELET_PORT,
            state / "pki" / "kubelet.crt",
            state / "pki" / "kubelet.key",
            [state / "pki" / "ca.crt", state / "pki" / "front-proxy-ca.crt"],
        )
        main_task = asyncio.create_task(kubelet.run())
        await asyncio.wait(
            [main_task, asyncio.create_task(stop.wait())], return_when=asyncio.FIRST_COMPLETED
        )
        if main_task.done() and main_task.exception():
            raise main_task.exception()

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
