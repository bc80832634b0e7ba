// The cluster as an informer-fed Go extender keeps it: nodes with their allocatable and the running totals of the
// pods bound to them, pending pods that hold a nomination, and the DRA node-allocatable amounts bound pods report
// (status.nodeAllocatableResourceClaimStatuses, one entry per claim). Loaded from the same v1 List file the
// benchmark hands kube-ledger; /bench/pods applies a pod change the way a watch event would.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

type claimUse struct {
	cpu, memory int64
	refs        int
}

type nodeInfo struct {
	name                          string
	known                         bool
	allocCPU, allocMemory         int64
	allocPods                     int64
	requestedCPU, requestedMemory int64 // bound pods' requests plus DRA amounts (filter)
	nonZeroCPU, nonZeroMemory     int64 // bound pods' non-zero requests plus DRA amounts (scoring)
	pods                          int
	nominated                     map[string]*podInfo // pending pods nominated here, by UID
	claims                        map[string]*claimUse
}

type claimRef struct {
	key         string
	cpu, memory int64
}

type podInfo struct {
	key, uid          string
	nodeName          string
	nominatedNodeName string
	priority          int32
	terminal          bool
	terminating       bool
	demand            podDemand
	claims            []claimRef
}

type cluster struct {
	mu        sync.RWMutex
	nodes     map[string]*nodeInfo
	podsByKey map[string]*podInfo
	podsByUID map[string]*podInfo
}

func newCluster() *cluster {
	return &cluster{nodes: map[string]*nodeInfo{}, podsByKey: map[string]*podInfo{}, podsByUID: map[string]*podInfo{}}
}

func (c *cluster) node(name string) *nodeInfo {
	n, ok := c.nodes[name]
	if !ok {
		n = &nodeInfo{name: name, nominated: map[string]*podInfo{}, claims: map[string]*claimUse{}}
		c.nodes[name] = n
	}
	return n
}

func (c *cluster) setNode(o *object) error {
	n := c.node(o.Metadata.Name)
	alloc := amounts{}
	if err := parseList(o.Status.Allocatable, alloc, nil); err != nil {
		return fmt.Errorf("node %s: %w", o.Metadata.Name, err)
	}
	n.known = true
	n.allocCPU, n.allocMemory, n.allocPods = alloc.milliCPU(), alloc.units("memory"), alloc.units("pods")
	return nil
}

func podKey(m metadata) string { return m.Namespace + "/" + m.Name }

func podFromObject(o *object) (*podInfo, error) {
	demand, err := demandOf(o)
	if err != nil {
		return nil, fmt.Errorf("pod %s: %w", podKey(o.Metadata), err)
	}
	p := &podInfo{key: podKey(o.Metadata), uid: o.Metadata.UID, nodeName: o.Spec.NodeName,
		nominatedNodeName: o.Status.NominatedNodeName, terminal: o.Status.Phase == "Succeeded" || o.Status.Phase == "Failed",
		terminating: o.Metadata.DeletionTimestamp != nil, demand: demand}
	if p.uid == "" {
		p.uid = p.key
	}
	if o.Spec.Priority != nil {
		p.priority = *o.Spec.Priority
	}
	for _, s := range o.Status.NodeAllocatableResourceClaimStatuses {
		use := amounts{}
		if err := parseList(s.Resources, use, nil); err != nil {
			return nil, fmt.Errorf("pod %s: %w", p.key, err)
		}
		p.claims = append(p.claims, claimRef{key: o.Metadata.Namespace + "/" + s.ResourceClaimName, cpu: use.milliCPU(), memory: use.units("memory")})
	}
	return p, nil
}

func (c *cluster) attach(p *podInfo) {
	switch {
	case p.nodeName != "" && !p.terminal:
		n := c.node(p.nodeName)
		n.pods++
		n.requestedCPU += p.demand.cpu
		n.requestedMemory += p.demand.memory
		n.nonZeroCPU += p.demand.nonZeroCPU
		n.nonZeroMemory += p.demand.nonZeroMemory
		for _, ref := range p.claims {
			use, ok := n.claims[ref.key]
			if !ok {
				use = &claimUse{cpu: ref.cpu, memory: ref.memory}
				n.claims[ref.key] = use
				n.requestedCPU += use.cpu
				n.requestedMemory += use.memory
				n.nonZeroCPU += use.cpu
				n.nonZeroMemory += use.memory
			}
			use.refs++
		}
	case p.nodeName == "" && p.nominatedNodeName != "" && !p.terminal && !p.terminating:
		c.node(p.nominatedNodeName).nominated[p.uid] = p
	}
}

func (c *cluster) detach(p *podInfo) {
	switch {
	case p.nodeName != "" && !p.terminal:
		n := c.node(p.nodeName)
		n.pods--
		n.requestedCPU -= p.demand.cpu
		n.requestedMemory -= p.demand.memory
		n.nonZeroCPU -= p.demand.nonZeroCPU
		n.nonZeroMemory -= p.demand.nonZeroMemory
		for _, ref := range p.claims {
			use := n.claims[ref.key]
			if use == nil {
				continue
			}
			if use.refs--; use.refs == 0 {
				delete(n.claims, ref.key)
				n.requestedCPU -= use.cpu
				n.requestedMemory -= use.memory
				n.nonZeroCPU -= use.cpu
				n.nonZeroMemory -= use.memory
			}
		}
	case p.nodeName == "" && p.nominatedNodeName != "":
		if n, ok := c.nodes[p.nominatedNodeName]; ok && n.nominated[p.uid] == p {
			delete(n.nominated, p.uid)
		}
	}
}

func (c *cluster) upsertPod(o *object) error {
	p, err := podFromObject(o)
	if err != nil {
		return err
	}
	c.deletePod(p.key)
	c.podsByKey[p.key] = p
	c.podsByUID[p.uid] = p
	c.attach(p)
	return nil
}

func (c *cluster) deletePod(key string) {
	if old, ok := c.podsByKey[key]; ok {
		c.detach(old)
		delete(c.podsByKey, key)
		if c.podsByUID[old.uid] == old {
			delete(c.podsByUID, old.uid)
		}
	}
}

func (c *cluster) apply(o *object) error {
	switch o.Kind {
	case "Node":
		return c.setNode(o)
	case "Pod":
		return c.upsertPod(o)
	}
	return nil // slices, claims, classes: not this extender's business
}

// load streams the v1 List's items one object at a time, so the 150k-pod file never sits in memory decoded.
func (c *cluster) load(path string) (int, error) {
	file, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(file, 1<<20))
	if _, err := dec.Token(); err != nil {
		return 0, err
	}
	count := 0
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return count, err
		}
		if key != "items" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return count, err
			}
			continue
		}
		if _, err := dec.Token(); err != nil {
			return count, err
		}
		for dec.More() {
			var o object
			if err := dec.Decode(&o); err != nil {
				return count, err
			}
			if err := c.apply(&o); err != nil {
				return count, err
			}
			count++
		}
		if _, err := dec.Token(); err != nil {
			return count, err
		}
	}
	return count, nil
}
