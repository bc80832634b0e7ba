// A reference scheduler extender written the way operators write them: Go standard library only (net/http,
// encoding/json), nodeCacheCapable filter + prioritize over an in-memory cluster. The kube-ledger benchmark races it
// against kube-ledger on the same cluster file after checking that both give the same answers.
//
//	go-extender -cluster FILE [-host 127.0.0.1] [-port 0]
//
// Prints {"port":N,"objects":N,"loadSeconds":S} on stdout once the cluster is loaded and the server listens.
// POST /bench/pods {"upsert": Pod} or {"delete": "namespace/name"} applies a pod change as a watch event would.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

type nodeList struct {
	Metadata json.RawMessage   `json:"metadata,omitempty"`
	Items    []json.RawMessage `json:"items"`
}

type extenderArgs struct {
	Pod       *object   `json:"Pod"`
	Nodes     *nodeList `json:"Nodes"`
	NodeNames *[]string `json:"NodeNames"`
}

type server struct{ cluster *cluster }

func fail(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": message})
}

// reply encodes the answer; a write error means the client went away (load generators close mid-reply).
func reply(w http.ResponseWriter, value interface{}) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(value)
}

// decodeArgs reads ExtenderArgs and the candidate names (NodeNames, or the names of the Nodes items).
func decodeArgs(r *http.Request) (*incomingPod, *extenderArgs, []string, error) {
	var args extenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		return nil, nil, nil, fmt.Errorf("decoding ExtenderArgs: %w", err)
	}
	if args.Pod == nil {
		return nil, nil, nil, fmt.Errorf("Pod is required")
	}
	demand, err := demandOf(args.Pod)
	if err != nil {
		return nil, nil, nil, err
	}
	pod := &incomingPod{uid: args.Pod.Metadata.UID, nominatedNodeName: args.Pod.Status.NominatedNodeName, demand: demand}
	if pod.uid == "" {
		pod.uid = podKey(args.Pod.Metadata)
	}
	if args.Pod.Spec.Priority != nil {
		pod.priority = *args.Pod.Spec.Priority
	}
	var names []string
	switch {
	case args.NodeNames != nil:
		names = *args.NodeNames
	case args.Nodes != nil:
		names = make([]string, len(args.Nodes.Items))
		for i, item := range args.Nodes.Items {
			var node struct {
				Metadata metadata `json:"metadata"`
			}
			if err := json.Unmarshal(item, &node); err != nil {
				return nil, nil, nil, fmt.Errorf("Nodes.items[%d]: %w", i, err)
			}
			names[i] = node.Metadata.Name
		}
	default:
		return nil, nil, nil, fmt.Errorf("one of NodeNames or Nodes must be set")
	}
	return pod, &args, names, nil
}

func (s *server) filter(w http.ResponseWriter, r *http.Request) {
	pod, args, names, err := decodeArgs(r)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	s.cluster.mu.RLock()
	passed, failed, unresolvable := s.cluster.filter(pod, names)
	s.cluster.mu.RUnlock()
	result := filterResult{FailedNodes: failed, FailedAndUnresolvableNodes: unresolvable}
	if args.NodeNames != nil {
		kept := make([]string, 0, len(names))
		for i, name := range names {
			if passed[i] {
				kept = append(kept, name)
			}
		}
		result.NodeNames = &kept
	} else {
		list := &nodeList{Metadata: args.Nodes.Metadata, Items: make([]json.RawMessage, 0, len(names))}
		for i, item := range args.Nodes.Items {
			if passed[i] {
				list.Items = append(list.Items, item)
			}
		}
		result.Nodes = list
	}
	reply(w, result)
}

func (s *server) prioritize(w http.ResponseWriter, r *http.Request) {
	pod, _, names, err := decodeArgs(r)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	s.cluster.mu.RLock()
	scores := s.cluster.prioritize(pod, names)
	s.cluster.mu.RUnlock()
	reply(w, scores)
}

func (s *server) pods(w http.ResponseWriter, r *http.Request) {
	var change struct {
		Upsert *object `json:"upsert"`
		Delete string  `json:"delete"`
	}
	if err := json.NewDecoder(r.Body).Decode(&change); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	s.cluster.mu.Lock()
	defer s.cluster.mu.Unlock()
	if change.Upsert != nil {
		if err := s.cluster.upsertPod(change.Upsert); err != nil {
			fail(w, http.StatusBadRequest, err.Error())
			return
		}
	} else if change.Delete != "" {
		s.cluster.deletePod(change.Delete)
	}
	reply(w, map[string]bool{"applied": true})
}

func post(handler http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			fail(w, http.StatusMethodNotAllowed, "POST only")
			return
		}
		handler(w, r)
	}
}

func main() {
	clusterFile := flag.String("cluster", "", "v1 List JSON file with the cluster's Nodes and Pods")
	host := flag.String("host", "127.0.0.1", "listen address")
	port := flag.Int("port", 0, "listen port (0: any free port)")
	flag.Parse()
	if *clusterFile == "" {
		fmt.Fprintln(os.Stderr, "go-extender: -cluster FILE is required")
		os.Exit(2)
	}
	started := time.Now()
	c := newCluster()
	objects, err := c.load(*clusterFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-extender: loading %s: %v\n", *clusterFile, err)
		os.Exit(1)
	}
	s := &server{cluster: c}
	mux := http.NewServeMux()
	mux.HandleFunc("/filter", post(s.filter))
	mux.HandleFunc("/prioritize", post(s.prioritize))
	mux.HandleFunc("/bench/pods", post(s.pods))
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }
	mux.HandleFunc("/readyz", ok)
	mux.HandleFunc("/healthz", ok)
	listener, err := net.Listen("tcp", net.JoinHostPort(*host, fmt.Sprint(*port)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-extender: %v\n", err)
		os.Exit(1)
	}
	ready, _ := json.Marshal(map[string]interface{}{"port": listener.Addr().(*net.TCPAddr).Port, "objects": objects,
		"loadSeconds": time.Since(started).Seconds()})
	fmt.Println(string(ready))
	log.Fatal(http.Serve(listener, mux))
}
