// Filter and prioritize: NodeResourcesFit's resource check (cpu, memory, pods) with nominated pods of equal or higher
// priority reserved (the scheduler's addGENominatedPods), and NodeResourcesFit's LeastAllocated score.
package main

import "strings"

// Reason strings: upstream NodeResourcesFit wording. A node failing on several resources gets them joined with ", ",
// as framework.Status.Message() joins a status's reasons.
const (
	reasonTooManyPods        = "Too many pods"
	reasonInsufficientCPU    = "Insufficient cpu"
	reasonInsufficientMemory = "Insufficient memory"
	reasonUnknownNode        = "node is not in the extender's cache"
	maxExtenderPriority      = 10  // extenderv1.MaxExtenderPriority
	maxNodeScore             = 100 // framework.MaxNodeScore
)

// notEvaluated is kube-ledger's stable reason for the other candidates when the pod's nominated node fits (its
// default nominated-node policy "exclusive"; kube-scheduler itself first sends the nominated node alone). Stable
// per cause like every kube-ledger reason (src/scheduling/reasons.ts), so the node is not named.
func notEvaluated(node string) string {
	_ = node
	return "node(s) not evaluated: the pod's nominated node fits"
}

type incomingPod struct {
	uid, nominatedNodeName string
	priority               int32
	demand                 podDemand
}

type verdict struct {
	fits         bool
	unresolvable bool
	reason       string
}

// fit mirrors NodeResourcesFit.fitsRequest on the node with the nominated pods added (Too many pods is never
// unresolvable; a resource is unresolvable when the request exceeds the node's allocatable).
func (c *cluster) fit(n *nodeInfo, pod *incomingPod) verdict {
	if n == nil || !n.known {
		return verdict{reason: reasonUnknownNode}
	}
	usedCPU, usedMemory, pods := n.requestedCPU, n.requestedMemory, int64(n.pods)
	for _, nominated := range n.nominated {
		if nominated.uid != pod.uid && nominated.priority >= pod.priority {
			usedCPU += nominated.demand.cpu
			usedMemory += nominated.demand.memory
			pods++
		}
	}
	if self, ok := c.podsByUID[pod.uid]; ok && self.nodeName == n.name && !self.terminal {
		usedCPU -= self.demand.cpu
		usedMemory -= self.demand.memory
		pods--
	}
	var reasons []string
	unresolvable := false
	if pods+1 > n.allocPods {
		reasons = append(reasons, reasonTooManyPods)
	}
	if pod.demand.cpu > 0 && pod.demand.cpu > n.allocCPU-usedCPU {
		reasons = append(reasons, reasonInsufficientCPU)
		unresolvable = unresolvable || pod.demand.cpu > n.allocCPU
	}
	if pod.demand.memory > 0 && pod.demand.memory > n.allocMemory-usedMemory {
		reasons = append(reasons, reasonInsufficientMemory)
		unresolvable = unresolvable || pod.demand.memory > n.allocMemory
	}
	if len(reasons) == 0 {
		return verdict{fits: true}
	}
	return verdict{unresolvable: unresolvable, reason: strings.Join(reasons, ", ")}
}

type filterResult struct {
	Nodes                      *nodeList         `json:"Nodes"`
	NodeNames                  *[]string         `json:"NodeNames"`
	FailedNodes                map[string]string `json:"FailedNodes"`
	FailedAndUnresolvableNodes map[string]string `json:"FailedAndUnresolvableNodes"`
	Error                      string            `json:"Error"`
}

// filter answers for the candidate names; passed[i] says whether names[i] passed.
func (c *cluster) filter(pod *incomingPod, names []string) (passed []bool, failed, unresolvable map[string]string) {
	passed = make([]bool, len(names))
	failed, unresolvable = map[string]string{}, map[string]string{}
	if nominated := pod.nominatedNodeName; nominated != "" {
		for i, name := range names {
			if name != nominated {
				continue
			}
			if c.fit(c.nodes[name], pod).fits {
				for j, other := range names {
					if j == i {
						passed[j] = true
					} else {
						failed[other] = notEvaluated(nominated)
					}
				}
				return passed, failed, unresolvable
			}
			break
		}
	}
	for i, name := range names {
		v := c.fit(c.nodes[name], pod)
		switch {
		case v.fits:
			passed[i] = true
		case v.unresolvable:
			unresolvable[name] = v.reason
		default:
			failed[name] = v.reason
		}
	}
	return passed, failed, unresolvable
}

type hostPriority struct {
	Host  string `json:"Host"`
	Score int64  `json:"Score"`
}

// leastAllocated is NodeResourcesFit's LeastAllocated score (0..100): cpu and memory weight 1 each, requested from
// the node's non-zero requests plus the pod's, a resource with zero allocatable left out of the weight sum.
func leastAllocated(n *nodeInfo, pod *incomingPod) int64 {
	var sum, weights int64
	for _, r := range [2][3]int64{
		{n.allocCPU, n.nonZeroCPU, pod.demand.nonZeroCPU},
		{n.allocMemory, n.nonZeroMemory, pod.demand.nonZeroMemory},
	} {
		allocatable, requested := r[0], r[1]+r[2]
		if allocatable == 0 {
			continue
		}
		score := int64(0)
		if requested <= allocatable {
			score = (allocatable - requested) * maxNodeScore / allocatable
		}
		sum += score
		weights++
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

// toExtenderScore maps the 0..100 node score onto the extender's 0..10 (kube-scheduler multiplies it back by 10).
func toExtenderScore(nodeScore int64) int64 { return nodeScore * maxExtenderPriority / maxNodeScore }

func (c *cluster) prioritize(pod *incomingPod, names []string) []hostPriority {
	out := make([]hostPriority, 0, len(names))
	for _, name := range names {
		n := c.nodes[name]
		score := int64(0)
		switch {
		case n == nil || !n.known:
		case name == pod.nominatedNodeName && c.fit(n, pod).fits:
			score = maxExtenderPriority // kube-ledger's nominated-node policy: the fitting nominated node scores highest
		default:
			score = toExtenderScore(leastAllocated(n, pod))
		}
		out = append(out, hostPriority{Host: name, Score: score})
	}
	return out
}
