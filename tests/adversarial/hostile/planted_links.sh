#!/bin/sh
# Fixes the task, then plants symlinks and FIFOs wherever the harness reads or writes:
# the decision file -> a host file (read it into trial.json), the protocol request directory
# (an answer file -> a host file to overwrite, a request -> a host file to read, a FIFO
# request and a FIFO manifest to hang the recorder, an oversized request), tries to clobber
# the live evidence, and prints key material to smuggle it out through the results.
# Placeholders filled in by the test: @HOST@ (a host directory), @RUN@ (the run directory).
kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list", "watch"]}]'
p=/var/run/kubeproof/protocol
# an answer file pointing at a host file, then a well-formed request for it
ln -s @HOST@/victim "$p/evil1.out"
ln -s @HOST@/victim "$p/evil1.rc"
# (written aside and renamed into place whole, as the `prescribe` command does: written in
# place, the recorder may read it half-written under load and refuse it as malformed)
printf '%s\0' prescribe --intent "look" --target roles/shop/reporter --operation read \
  > "$p/evil1.tmp"
mv "$p/evil1.tmp" "$p/evil1.req"
# a request that is a host file; a request that is a FIFO; a manifest that is a FIFO
ln -s @HOST@/secret "$p/evil2.req"
mkfifo "$p/evil3.req"
mkfifo "$p/evil4.manifest"
printf '%s\0' prescribe --intent "apply" --target roles/shop/reporter --manifest - \
  > "$p/evil4.tmp"
mv "$p/evil4.tmp" "$p/evil4.req"
# 300 kB of request, renamed into place whole as the `prescribe` command does (written in
# place, the recorder may read it half-written: under the limit, refused as malformed)
head -c 300000 /dev/zero | tr '\0' 'a' > "$p/evil5.tmp"
mv "$p/evil5.tmp" "$p/evil5.req"
# the recorder's answer to the oversized request, once it is there (the .rc comes last);
# waited for, not slept on: a loaded machine answers late
i=0
while [ ! -f "$p/evil5.rc" ] && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
cat "$p/evil5.out"
# the live evidence, wherever it might be reachable (the marker is spelled out only when
# written, so the recorded script text does not hold it)
for f in @RUN@/trials/*/*/*/evidence/segment-*.jsonl /proc/1/fd/* /proc/*/cwd/evidence/*; do
  [ -e "$f" ] && printf 'CLOB%s\n' BERED >> "$f" 2>/dev/null
done
# key material printed to be carried out in the results
printf -- '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEISMUGGLEDKEYMATERIAL0123456789abcdef\n'
printf -- '-----END PRIVATE KEY-----\n'
echo "Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzbXVnZ2xlZCJ9.c21VZ2dsZWRzaWduYXR1cmU"
mkdir -p "$HOME/.kubeproof"
ln -sf @HOST@/secret "$HOME/.kubeproof/decision"
