// netpolcheck: NetworkPolicy verdicts from an engine kubeproof did not write, to cross-check
// netsim (docs/netsim.md, "Cross-check").
//
// Reads cases from stdin, a stream of JSON values, each
//
//	{"namespaces": [Namespace], "pods": [Pod], "policies": [NetworkPolicy],
//	 "probes": [{"source": {"pod": "ns/name"} | {"ip": "a.b.c.d"},
//	             "target": {"pod": "ns/name"} | {"ip": "a.b.c.d"},
//	             "port": 80, "protocol": "TCP"}]}
//
// with the objects as the Kubernetes API writes them, and prints one JSON line per case:
// {"verdicts": [{"allowed", "ingress", "egress", "unsimplified"}]} or {"error": "..."}.
//
// The objects are defaulted by the apiserver's own functions (policyTypes, port protocols,
// the kubernetes.io/metadata.name namespace label, container port protocols), policies are
// validated by its validation (an invalid one is the case's error), then judged
// by cyclonus's matcher exactly as its `analyze` command and its probe simulator build it.
// The only decision made here is the probe's port name: cyclonus takes it resolved; it is
// the name of the destination container port with the probe's number and protocol.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mattfenwick/cyclonus/pkg/matcher"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	coredefaults "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/networking"
	networkingv1api "k8s.io/kubernetes/pkg/apis/networking/v1"
	"k8s.io/kubernetes/pkg/apis/networking/validation"
)

type endpoint struct {
	Pod string `json:"pod,omitempty"`
	IP  string `json:"ip,omitempty"`
}

type probe struct {
	Source   endpoint        `json:"source"`
	Target   endpoint        `json:"target"`
	Port     int             `json:"port"`
	Protocol corev1.Protocol `json:"protocol"`
}

type testCase struct {
	Namespaces []corev1.Namespace           `json:"namespaces"`
	Pods       []corev1.Pod                 `json:"pods"`
	Policies   []networkingv1.NetworkPolicy `json:"policies"`
	Probes     []probe                      `json:"probes"`
}

type verdict struct {
	Allowed bool `json:"allowed"`
	Ingress bool `json:"ingress"`
	Egress  bool `json:"egress"`
	// the verdict of the policies as written, before cyclonus's simplifier merged them
	Unsimplified bool `json:"unsimplified"`
}

type answer struct {
	Verdicts []verdict `json:"verdicts,omitempty"`
	Error    string    `json:"error,omitempty"`
}

type world struct {
	pods       map[string]*corev1.Pod
	nsLabels   map[string]map[string]string
	simplified *matcher.Policy
	asWritten  *matcher.Policy
}

// validate refuses a policy the apiserver would refuse: verdicts on it would mean nothing.
func validate(policy *networkingv1.NetworkPolicy) error {
	var internal networking.NetworkPolicy
	if err := networkingv1api.Convert_v1_NetworkPolicy_To_networking_NetworkPolicy(policy, &internal, nil); err != nil {
		return err
	}
	opts := validation.ValidationOptionsForNetworking(&internal, nil)
	if errs := validation.ValidateNetworkPolicy(&internal, opts); len(errs) > 0 {
		return fmt.Errorf("NetworkPolicy %s/%s is invalid: %v", policy.Namespace, policy.Name, errs.ToAggregate())
	}
	return nil
}

func newWorld(c *testCase) (*world, error) {
	w := &world{pods: map[string]*corev1.Pod{}, nsLabels: map[string]map[string]string{}}
	for i := range c.Namespaces {
		ns := &c.Namespaces[i]
		coredefaults.SetObjectDefaults_Namespace(ns)
		w.nsLabels[ns.Name] = ns.Labels
	}
	for i := range c.Pods {
		pod := &c.Pods[i]
		coredefaults.SetObjectDefaults_Pod(pod)
		w.pods[pod.Namespace+"/"+pod.Name] = pod
	}
	policies := make([]*networkingv1.NetworkPolicy, len(c.Policies))
	for i := range c.Policies {
		networkingv1api.SetObjectDefaults_NetworkPolicy(&c.Policies[i])
		if err := validate(&c.Policies[i]); err != nil {
			return nil, err
		}
		policies[i] = &c.Policies[i]
	}
	// BuildNetworkPolicies merges targets in place; each policy set gets its own copies
	w.simplified = matcher.BuildNetworkPolicies(true, deepCopies(policies))
	w.asWritten = matcher.BuildNetworkPolicies(false, deepCopies(policies))
	return w, nil
}

func deepCopies(policies []*networkingv1.NetworkPolicy) []*networkingv1.NetworkPolicy {
	out := make([]*networkingv1.NetworkPolicy, len(policies))
	for i, p := range policies {
		out[i] = p.DeepCopy()
	}
	return out
}

func (w *world) peer(e endpoint) (*matcher.TrafficPeer, *corev1.Pod, error) {
	if e.Pod == "" {
		return &matcher.TrafficPeer{IP: e.IP}, nil, nil
	}
	pod, ok := w.pods[e.Pod]
	if !ok {
		return nil, nil, fmt.Errorf("no pod %s", e.Pod)
	}
	labels, ok := w.nsLabels[pod.Namespace]
	if !ok {
		return nil, nil, fmt.Errorf("pod %s: no namespace %s", e.Pod, pod.Namespace)
	}
	internal := &matcher.InternalPeer{
		PodLabels:       pod.Labels,
		NamespaceLabels: labels,
		Namespace:       pod.Namespace,
	}
	return &matcher.TrafficPeer{Internal: internal, IP: pod.Status.PodIP}, pod, nil
}

func portName(pod *corev1.Pod, port int, protocol corev1.Protocol) string {
	if pod == nil {
		return ""
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if int(p.ContainerPort) == port && p.Protocol == protocol {
				return p.Name
			}
		}
	}
	return ""
}

func judge(c *testCase) (verdicts []verdict, err error) {
	defer func() {
		// cyclonus panics on policies it deems invalid: that is the case's answer
		if r := recover(); r != nil {
			err = fmt.Errorf("cyclonus panicked: %v", r)
		}
	}()
	w, err := newWorld(c)
	if err != nil {
		return nil, err
	}
	for _, p := range c.Probes {
		src, _, err := w.peer(p.Source)
		if err != nil {
			return nil, err
		}
		dst, dstPod, err := w.peer(p.Target)
		if err != nil {
			return nil, err
		}
		traffic := &matcher.Traffic{
			Source:           src,
			Destination:      dst,
			ResolvedPort:     p.Port,
			ResolvedPortName: portName(dstPod, p.Port, p.Protocol),
			Protocol:         p.Protocol,
		}
		result := w.simplified.IsTrafficAllowed(traffic)
		verdicts = append(verdicts, verdict{
			Allowed:      result.IsAllowed(),
			Ingress:      result.Ingress.IsAllowed(),
			Egress:       result.Egress.IsAllowed(),
			Unsimplified: w.asWritten.IsTrafficAllowed(traffic).IsAllowed(),
		})
	}
	return verdicts, nil
}

func main() {
	decoder := json.NewDecoder(bufio.NewReader(os.Stdin))
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	encoder := json.NewEncoder(out)
	for {
		var c testCase
		err := decoder.Decode(&c)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "netpolcheck: bad input: %v\n", err)
			os.Exit(2)
		}
		verdicts, err := judge(&c)
		a := answer{Verdicts: verdicts}
		if err != nil {
			a = answer{Error: err.Error()}
		}
		if err := encoder.Encode(a); err != nil {
			fmt.Fprintf(os.Stderr, "netpolcheck: %v\n", err)
			os.Exit(1)
		}
	}
}
