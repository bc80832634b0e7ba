module kubeledger.bench/goextender

go 1.19
