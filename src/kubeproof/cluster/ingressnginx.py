"""ingress-nginx as an optional addon: what kubernetes/ingress-nginx's bare-metal manifest
(deploy/static/provider/baremetal/deploy.yaml at controller-v1.15.1) creates for the
controller — Namespace ingress-nginx, ServiceAccount, Role and ClusterRole with their
bindings, the controller ConfigMap, the NodePort Service ingress-nginx-controller (80/443),
the admission Service, the Deployment and the IngressClass `nginx` — installed on request
(`kubeproof cluster addons install ingress-nginx`), never by default.

Left out, on purpose: the admission webhook. Its ValidatingWebhookConfiguration
(failurePolicy Fail) would send every Ingress create to a webhook server the simulated pod
does not run, rejecting them all; the two kube-webhook-certgen Jobs that make its
certificate are replaced by the Secret they would leave behind (`ingress-nginx-admission`,
keys ca/cert/key — placeholders, nothing reads them), so the Deployment's volume mounts.
The image is named by its tag (upstream pins the digest too). Its routing is
netsim/ingress.py and netsim/http.py; its status writes nodesim/ingressstatus.py."""

from lightkube import Client
from lightkube.codecs import load_all_yaml

from kubeproof.cluster.addons import create_missing

VERSION = "v1.15.1"
IMAGE = f"registry.k8s.io/ingress-nginx/controller:{VERSION}"
NAMESPACE = "ingress-nginx"
SERVICE = "ingress-nginx-controller"
CLASS = "nginx"
CONTROLLER_CLASS = "k8s.io/ingress-nginx"
# the pod labels the Service, the Deployment and the status syncer select by
SELECTOR = {
    "app.kubernetes.io/component": "controller",
    "app.kubernetes.io/instance": "ingress-nginx",
    "app.kubernetes.io/name": "ingress-nginx",
}
LABELS = """
  labels:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: ingress-nginx
    app.kubernetes.io/name: ingress-nginx
    app.kubernetes.io/part-of: ingress-nginx
    app.kubernetes.io/version: 1.15.1"""

_READ = "  verbs:\n  - get\n  - list\n  - watch"
_RULES_COMMON = f"""
- apiGroups:
  - ""
  resources:
  - services
{_READ}
- apiGroups:
  - networking.k8s.io
  resources:
  - ingresses
{_READ}
- apiGroups:
  - networking.k8s.io
  resources:
  - ingresses/status
  verbs:
  - update
- apiGroups:
  - networking.k8s.io
  resources:
  - ingressclasses
{_READ}
- apiGroups:
  - ""
  resources:
  - events
  verbs:
  - create
  - patch
- apiGroups:
  - discovery.k8s.io
  resources:
  - endpointslices
  verbs:
  - list
  - watch
  - get"""

MANIFEST = f"""
apiVersion: v1
kind: Namespace
metadata:
  labels:
    app.kubernetes.io/instance: ingress-nginx
    app.kubernetes.io/name: ingress-nginx
  name: {NAMESPACE}
---
apiVersion: v1
automountServiceAccountToken: true
kind: ServiceAccount
metadata:{LABELS}
  name: ingress-nginx
  namespace: {NAMESPACE}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:{LABELS}
  name: ingress-nginx
  namespace: {NAMESPACE}
rules:
- apiGroups:
  - ""
  resources:
  - namespaces
  verbs:
  - get
- apiGroups:
  - ""
  resources:
  - configmaps
  - pods
  - secrets
  - endpoints
{_READ}{_RULES_COMMON}
- apiGroups:
  - coordination.k8s.io
  resourceNames:
  - ingress-nginx-leader
  resources:
  - leases
  verbs:
  - get
  - update
- apiGroups:
  - coordination.k8s.io
  resources:
  - leases
  verbs:
  - create
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  labels:
    app.kubernetes.io/instance: ingress-nginx
    app.kubernetes.io/name: ingress-nginx
    app.kubernetes.io/part-of: ingress-nginx
    app.kubernetes.io/version: 1.15.1
  name: ingress-nginx
rules:
- apiGroups:
  - ""
  resources:
  - configmaps
  - endpoints
  - nodes
  - pods
  - secrets
  - namespaces
  verbs:
  - list
  - watch
- apiGroups:
  - coordination.k8s.io
  resources:
  - leases
  verbs:
  - list
  - watch
- apiGroups:
  - ""
  resources:
  - nodes
  verbs:
  - get{_RULES_COMMON}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:{LABELS}
  name: ingress-nginx
  namespace: {NAMESPACE}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ingress-nginx
subjects:
- kind: ServiceAccount
  name: ingress-nginx
  namespace: {NAMESPACE}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  labels:
    app.kubernetes.io/instance: ingress-nginx
    app.kubernetes.io/name: ingress-nginx
    app.kubernetes.io/part-of: ingress-nginx
    app.kubernetes.io/version: 1.15.1
  name: ingress-nginx
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ingress-nginx
subjects:
- kind: ServiceAccount
  name: ingress-nginx
  namespace: {NAMESPACE}
---
apiVersion: v1
kind: ConfigMap
metadata:{LABELS}
  name: ingress-nginx-controller
  namespace: {NAMESPACE}
---
apiVersion: v1
kind: Secret
metadata:
  name: ingress-nginx-admission
  namespace: {NAMESPACE}
stringData:
  ca: placeholder
  cert: placeholder
  key: placeholder
---
apiVersion: v1
kind: Service
metadata:{LABELS}
  name: {SERVICE}
  namespace: {NAMESPACE}
spec:
  ipFamilies:
  - IPv4
  ipFamilyPolicy: SingleStack
  ports:
  - appProtocol: http
    name: http
    port: 80
    protocol: TCP
    targetPort: http
  - appProtocol: https
    name: https
    port: 443
    protocol: TCP
    targetPort: https
  selector:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: ingress-nginx
    app.kubernetes.io/name: ingress-nginx
  type: NodePort
---
apiVersion: v1
kind: Service
metadata:{LABELS}
  name: ingress-nginx-controller-admission
  namespace: {NAMESPACE}
spec:
  ports:
  - appProtocol: https
    name: https-webhook
    port: 443
    targetPort: webhook
  selector:
    app.kubernetes.io/component: controller
    app.kubernetes.io/instance: ingress-nginx
    app.kubernetes.io/name: ingress-nginx
  type: ClusterIP
---
apiVersion: apps/v1
kind: Deployment
metadata:{LABELS}
  name: ingress-nginx-controller
  namespace: {NAMESPACE}
spec:
  minReadySeconds: 0
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app.kubernetes.io/component: controller
      app.kubernetes.io/instance: ingress-nginx
      app.kubernetes.io/name: ingress-nginx
  strategy:
    rollingUpdate:
      maxUnavailable: 1
    type: RollingUpdate
  template:
    metadata:{LABELS.replace(chr(10), chr(10) + "    ")}
    spec:
      automountServiceAccountToken: true
      containers:
      - args:
        - /nginx-ingress-controller
        - --election-id=ingress-nginx-leader
        - --controller-class={CONTROLLER_CLASS}
        - --ingress-class={CLASS}
        - --configmap=$(POD_NAMESPACE)/ingress-nginx-controller
        - --validating-webhook=:8443
        - --validating-webhook-certificate=/usr/local/certificates/cert
        - --validating-webhook-key=/usr/local/certificates/key
        env:
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        - name: LD_PRELOAD
          value: /usr/local/lib/libmimalloc.so
        image: {IMAGE}
        imagePullPolicy: IfNotPresent
        lifecycle:
          preStop:
            exec:
              command:
              - /wait-shutdown
        livenessProbe:
          failureThreshold: 5
          httpGet:
            path: /healthz
            port: 10254
            scheme: HTTP
          initialDelaySeconds: 10
          periodSeconds: 10
          successThreshold: 1
          timeoutSeconds: 1
        name: controller
        ports:
        - containerPort: 80
          name: http
          protocol: TCP
        - containerPort: 443
          name: https
          protocol: TCP
        - containerPort: 8443
          name: webhook
          protocol: TCP
        readinessProbe:
          failureThreshold: 3
          httpGet:
            path: /healthz
            port: 10254
            scheme: HTTP
          initialDelaySeconds: 10
          periodSeconds: 10
          successThreshold: 1
          timeoutSeconds: 1
        resources:
          requests:
            cpu: 100m
            memory: 90Mi
        securityContext:
          allowPrivilegeEscalation: false
          capabilities:
            add:
            - NET_BIND_SERVICE
            drop:
            - ALL
          readOnlyRootFilesystem: false
          runAsGroup: 82
          runAsNonRoot: true
          runAsUser: 101
          seccompProfile:
            type: RuntimeDefault
        volumeMounts:
        - mountPath: /usr/local/certificates/
          name: webhook-cert
          readOnly: true
      dnsPolicy: ClusterFirst
      nodeSelector:
        kubernetes.io/os: linux
      serviceAccountName: ingress-nginx
      terminationGracePeriodSeconds: 300
      volumes:
      - name: webhook-cert
        secret:
          secretName: ingress-nginx-admission
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:{LABELS}
  name: {CLASS}
spec:
  controller: {CONTROLLER_CLASS}
"""


def objects() -> list:
    return list(load_all_yaml(MANIFEST))


def install(client: Client) -> list[str]:
    """Create the objects in manifest order (kubectl apply's order); ones that exist are
    left as they are. Returns `Kind/name` of what was created."""
    return create_missing(client, objects())
