// The few fields of Kubernetes objects this extender reads, decoded with encoding/json (unknown fields are skipped),
// and a pod's effective requests computed the way kube-scheduler computes them.
package main

import (
	"encoding/json"
	"math/big"
)

type resourceList map[string]qty

type containerResources struct {
	Requests resourceList      `json:"requests"`
	Limits   resourceList      `json:"limits"`
	Claims   []json.RawMessage `json:"claims"`
}

type container struct {
	RestartPolicy string             `json:"restartPolicy"`
	Resources     containerResources `json:"resources"`
}

type podLevelResources struct {
	Requests resourceList `json:"requests"`
	Limits   resourceList `json:"limits"`
}

type metadata struct {
	Name              string  `json:"name"`
	Namespace         string  `json:"namespace"`
	UID               string  `json:"uid"`
	DeletionTimestamp *string `json:"deletionTimestamp"`
}

type claimStatus struct {
	ResourceClaimName string       `json:"resourceClaimName"`
	Resources         resourceList `json:"resources"`
}

// object is the union of what is read from Nodes and Pods: one decode per item of the cluster file.
type object struct {
	Kind     string   `json:"kind"`
	Metadata metadata `json:"metadata"`
	Spec     struct {
		NodeName       string             `json:"nodeName"`
		Priority       *int32             `json:"priority"`
		Containers     []container        `json:"containers"`
		InitContainers []container        `json:"initContainers"`
		Overhead       resourceList       `json:"overhead"`
		Resources      *podLevelResources `json:"resources"`
		ResourceClaims []json.RawMessage  `json:"resourceClaims"`
	} `json:"spec"`
	Status struct {
		Phase                                string        `json:"phase"`
		NominatedNodeName                    string        `json:"nominatedNodeName"`
		Allocatable                          resourceList  `json:"allocatable"`
		NodeAllocatableResourceClaimStatuses []claimStatus `json:"nodeAllocatableResourceClaimStatuses"`
	} `json:"status"`
}

// podDemand is what the filter and the scorer need of a pod.
type podDemand struct {
	cpu, memory   int64 // requests: millicores, bytes
	nonZeroCPU    int64 // the same with 100m for a container without a cpu request (scoring only)
	nonZeroMemory int64 // ... and 200Mi for one without a memory request
	hasClaims     bool
}

const defaultMilliCPURequest = 100             // upstream schedutil.DefaultMilliCPURequest
const defaultMemoryRequest = 200 * 1024 * 1024 // upstream schedutil.DefaultMemoryRequest

func parseList(list resourceList, into amounts, skip func(string) bool) error {
	for name, text := range list {
		if skip != nil && skip(name) {
			continue
		}
		value, err := parseQuantity(string(text))
		if err != nil {
			return err
		}
		into.add(name, value)
	}
	return nil
}

// containerRequests: requests after apiserver defaulting (a limit without a request is the request), except in a
// container that uses DRA claims, whose limits include the claims' share (kube-ledger's rule, KEP-5517 example).
// nonZero fills a missing cpu/memory request with the scheduler's scoring defaults (NonMissingContainerRequests).
func containerRequests(c container, nonZero bool) (amounts, error) {
	own := amounts{}
	if err := parseList(c.Resources.Requests, own, nil); err != nil {
		return nil, err
	}
	if len(c.Resources.Claims) == 0 {
		err := parseList(c.Resources.Limits, own, func(name string) bool { _, has := c.Resources.Requests[name]; return has })
		if err != nil {
			return nil, err
		}
	}
	if nonZero {
		if _, has := own["cpu"]; !has {
			own["cpu"] = big.NewRat(defaultMilliCPURequest, 1000)
		}
		if _, has := own["memory"]; !has {
			own["memory"] = new(big.Rat).SetInt64(defaultMemoryRequest)
		}
	}
	return own, nil
}

func maxInto(target, other amounts) {
	for name, value := range other {
		if current, ok := target[name]; !ok || value.Cmp(current) > 0 {
			target[name] = new(big.Rat).Set(value)
		}
	}
}

// podRequests mirrors component-helpers resource.PodRequests: sum(containers) + sidecars, at least the peak of any
// init container (with the sidecars started before it), pod-level requests replacing cpu/memory, plus overhead.
func podRequests(o *object, nonZero bool) (amounts, error) {
	total := amounts{}
	for _, c := range o.Spec.Containers {
		own, err := containerRequests(c, nonZero)
		if err != nil {
			return nil, err
		}
		for name, v := range own {
			total.add(name, v)
		}
	}
	sidecars, peak := amounts{}, amounts{}
	for _, c := range o.Spec.InitContainers {
		own, err := containerRequests(c, nonZero)
		if err != nil {
			return nil, err
		}
		if c.RestartPolicy == "Always" {
			for name, v := range own {
				total.add(name, v)
				sidecars.add(name, v)
			}
			maxInto(peak, sidecars)
		} else {
			for name, v := range sidecars {
				own.add(name, v)
			}
			maxInto(peak, own)
		}
	}
	maxInto(total, peak)
	if pl := o.Spec.Resources; pl != nil {
		for _, name := range []string{"cpu", "memory"} {
			if text, ok := pl.Requests[name]; ok {
				v, err := parseQuantity(string(text))
				if err != nil {
					return nil, err
				}
				total[name] = v
			} else if text, ok := pl.Limits[name]; ok {
				if _, aggregated := total[name]; !aggregated {
					v, err := parseQuantity(string(text))
					if err != nil {
						return nil, err
					}
					total[name] = v
				}
			}
		}
	}
	if err := parseList(o.Spec.Overhead, total, nil); err != nil {
		return nil, err
	}
	return total, nil
}

func demandOf(o *object) (podDemand, error) {
	exact, err := podRequests(o, false)
	if err != nil {
		return podDemand{}, err
	}
	nonZero, err := podRequests(o, true)
	if err != nil {
		return podDemand{}, err
	}
	return podDemand{
		cpu: exact.milliCPU(), memory: exact.units("memory"),
		nonZeroCPU: nonZero.milliCPU(), nonZeroMemory: nonZero.units("memory"),
		hasClaims: len(o.Spec.ResourceClaims) > 0,
	}, nil
}
