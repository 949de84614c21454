"""k3s's bundled Traefik as an optional addon: what the `traefik` HelmChart of k3s's
manifests/traefik.yaml leaves in kube-system once k3s's helm-controller has installed it —
ServiceAccount, ClusterRole and ClusterRoleBinding `traefik-kube-system`, the Deployment and
the LoadBalancer Service `traefik` (web 80, websecure 443) and the default IngressClass
`traefik` — installed on request (`kubeproof cluster addons install traefik`, a task's
`addons = ["traefik"]`), never by default.

The version k3s v1.36 bundles: chart traefik-40.1.3+up40.1.0 (traefik/traefik-helm-chart
v40.1.0, repackaged by Rancher) with image rancher/mirrored-library-traefik:3.7.4. The
objects are the chart's templates rendered with release `traefik` in kube-system and k3s's
values (manifests/traefik.yaml valuesContent: deployment.podAnnotations, publishedService,
priorityClassName, image, tolerations): templates/rbac/serviceaccount.yaml,
rbac/clusterrole.yaml (kubernetesIngress and kubernetesCRD providers on, no hub),
rbac/clusterrolebinding.yaml, deployment.yaml with _podtemplate.tpl (ports and entry points
in the chart's key order: metrics 9100, traefik 8080, web 8000, websecure 8443; /ping on
8080 for both probes; the websecure entry point's TLS on), service.yaml with _service.tpl
(only ports with expose.default) and ingressclass.yaml (isDefaultClass true, controller
traefik.io/ingress-controller). _helpers.tpl names them: fullname `traefik`, instance label
`traefik-kube-system`, ClusterRole name fullname-namespace.

Left out: the traefik-crd chart's CustomResourceDefinitions (IngressRoute, Middleware, …;
the Ingress provider does not need them), the helm release Secret and the helm-install
Jobs, and k3s's ServiceLB (`svclb-traefik-*` DaemonSet): kubeproof has no ServiceLB, so the
Service's external IP stays pending as with `k3s server --disable=servicelb`. Its routing is
netsim/traefik.py; its answers netsim/http.py."""

from lightkube import Client
from lightkube.codecs import load_all_yaml

from kubeproof.cluster.addons import create_missing

CHART = "traefik-40.1.3_up40.1.0"  # _helpers.tpl traefik.chart: "+" becomes "_"
VERSION = "3.7.4"
IMAGE = f"rancher/mirrored-library-traefik:{VERSION}"
NAMESPACE = "kube-system"
NAME = "traefik"
CLASS = "traefik"
CONTROLLER_CLASS = (
    "traefik.io/ingress-controller"  # provider ingress traefikDefaultIngressClassController
)
SELECTOR = {
    "app.kubernetes.io/name": "traefik",
    "app.kubernetes.io/instance": "traefik-kube-system",
}
LABELS = f"""
  labels:
    app.kubernetes.io/instance: traefik-kube-system
    app.kubernetes.io/managed-by: Helm
    app.kubernetes.io/name: traefik
    helm.sh/chart: {CHART}"""

MANIFEST = f"""
apiVersion: v1
kind: ServiceAccount
metadata:{LABELS}
  name: {NAME}
  namespace: {NAMESPACE}
automountServiceAccountToken: false
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:{LABELS}
  name: traefik-kube-system
rules:
  - apiGroups:
      - ""
    resources:
      - configmaps
      - nodes
      - services
    verbs:
      - get
      - list
      - watch
  - apiGroups:
      - discovery.k8s.io
    resources:
      - endpointslices
    verbs:
      - list
      - watch
  - apiGroups:
      - ""
    resources:
      - pods
    verbs:
      - get
  - apiGroups:
      - ""
    resources:
      - secrets
    verbs:
      - get
      - list
      - watch
  - apiGroups:
      - extensions
      - networking.k8s.io
    resources:
      - ingressclasses
      - ingresses
    verbs:
      - get
      - list
      - watch
  - apiGroups:
      - extensions
      - networking.k8s.io
    resources:
      - ingresses/status
    verbs:
      - update
  - apiGroups:
      - ""
    resources:
      - namespaces
    verbs:
      - list
      - watch
  - apiGroups:
      - traefik.io
    resources:
      - ingressroutes
      - ingressroutetcps
      - ingressrouteudps
      - middlewares
      - middlewaretcps
      - serverstransports
      - serverstransporttcps
      - tlsoptions
      - tlsstores
      - traefikservices
    verbs:
      - get
      - list
      - watch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:{LABELS}
  name: traefik-kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: traefik-kube-system
subjects:
  - kind: ServiceAccount
    name: {NAME}
    namespace: {NAMESPACE}
---
apiVersion: apps/v1
kind: Deployment
metadata:{LABELS}
  name: {NAME}
  namespace: {NAMESPACE}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/instance: traefik-kube-system
      app.kubernetes.io/name: traefik
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  minReadySeconds: 0
  template:
    metadata:
      annotations:
        prometheus.io/path: /metrics
        prometheus.io/port: "9100"
        prometheus.io/scrape: "true"
{LABELS.replace(chr(10), chr(10) + "    ")[1:]}
    spec:
      serviceAccountName: {NAME}
      automountServiceAccountToken: true
      terminationGracePeriodSeconds: 60
      hostNetwork: false
      priorityClassName: system-cluster-critical
      containers:
        - image: {IMAGE}
          imagePullPolicy: IfNotPresent
          name: traefik
          readinessProbe:
            httpGet:
              path: /ping
              port: 8080
              scheme: HTTP
            failureThreshold: 1
            initialDelaySeconds: 2
            periodSeconds: 10
            successThreshold: 1
            timeoutSeconds: 2
          livenessProbe:
            httpGet:
              path: /ping
              port: 8080
              scheme: HTTP
            failureThreshold: 3
            initialDelaySeconds: 2
            periodSeconds: 10
            successThreshold: 1
            timeoutSeconds: 2
          ports:
            - name: metrics
              containerPort: 9100
              protocol: TCP
            - name: traefik
              containerPort: 8080
              protocol: TCP
            - name: web
              containerPort: 8000
              protocol: TCP
            - name: websecure
              containerPort: 8443
              protocol: TCP
          securityContext:
            allowPrivilegeEscalation: false
            capabilities:
              drop:
                - ALL
            readOnlyRootFilesystem: true
          volumeMounts:
            - name: data
              mountPath: /data
            - name: tmp
              mountPath: /tmp
          args:
            - --entryPoints.metrics.address=:9100/tcp
            - --entryPoints.traefik.address=:8080/tcp
            - --entryPoints.web.address=:8000/tcp
            - --entryPoints.websecure.address=:8443/tcp
            - --api.dashboard=true
            - --ping=true
            - --metrics.prometheus=true
            - --metrics.prometheus.entrypoint=metrics
            - --providers.kubernetescrd
            - --providers.kubernetescrd.allowEmptyServices=true
            - --providers.kubernetesingress
            - --providers.kubernetesingress.allowEmptyServices=true
            - --providers.kubernetesingress.ingressendpoint.publishedservice={NAMESPACE}/{NAME}
            - --entryPoints.websecure.http.tls=true
            - --log.level=INFO
          env:
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: USER
              value: traefik
      volumes:
        - name: data
          emptyDir: {{}}
        - name: tmp
          emptyDir: {{}}
      tolerations:
        - key: CriticalAddonsOnly
          operator: Exists
        - key: node-role.kubernetes.io/control-plane
          operator: Exists
          effect: NoSchedule
        - key: node-role.kubernetes.io/master
          operator: Exists
          effect: NoSchedule
      securityContext:
        runAsGroup: 65532
        runAsNonRoot: true
        runAsUser: 65532
        seccompProfile:
          type: RuntimeDefault
---
apiVersion: v1
kind: Service
metadata:{LABELS}
  name: {NAME}
  namespace: {NAMESPACE}
spec:
  type: LoadBalancer
  selector:
    app.kubernetes.io/instance: traefik-kube-system
    app.kubernetes.io/name: traefik
  ports:
  - port: 80
    name: web
    targetPort: web
    protocol: TCP
  - port: 443
    name: websecure
    targetPort: websecure
    protocol: TCP
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"{LABELS}
  name: {CLASS}
spec:
  controller: {CONTROLLER_CLASS}
"""


def objects() -> list:
    return list(load_all_yaml(MANIFEST))


def install(client: Client) -> list[str]:
    """Create the objects in manifest order; ones that exist are left as they are. Returns
    `Kind/name` of what was created."""
    return create_missing(client, objects())
