#!/bin/sh
# Its own Role bound to everyone unauthenticated and to system:anonymous, then the fix made
# without credentials (kubectl would ask for a user name: curl), attributed to nobody.
. @LIB@
kubectl -n ledger create rolebinding open-door --role=kubeproof-agent \
  --group=system:unauthenticated --user=system:anonymous
url="$(server)/apis/rbac.authorization.k8s.io/v1/namespaces/ledger/roles/reporter"
for _ in 1 2 3 4 5 6; do
  code=$(curl -sk -o /dev/null -w '%{http_code}' -X PATCH "$url" \
    -H 'Content-Type: application/json-patch+json' \
    -d '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list"]}]')
  echo "anonymous patch: HTTP $code"
  [ "$code" = 200 ] && break
  sleep 0.5
done
