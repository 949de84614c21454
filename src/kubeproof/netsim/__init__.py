"""Services, cluster DNS and NetworkPolicy semantics as pure functions over API objects:
"can pod A reach host:port, and if not, why".

    from kubeproof.netsim import Network

    net = Network.from_objects(objects)          # plain dicts: pods, services, policies …
    verdict = net.connect("shop/web-0", "api:8080")
    verdict.allowed, verdict.reason, verdict.steps
"""

from kubeproof.netsim.connect import Network, Verdict

__all__ = ["Network", "Verdict"]
