# kube-ledger, the scheduler extender, as a production image.
#
#   docker build -t registry.example.com/kube-ledger:0.1.0 --build-arg REVISION=$(git rev-parse HEAD) .
#
# Two stages: `build` compiles the TypeScript with tsc; `runtime` holds only the production dependencies, the compiled
# dist/ and the default configuration (no tsx, no TypeScript, no dev dependencies). It runs as a numeric non-root UID
# (so `runAsNonRoot` can verify it) and writes nothing, so it works with `readOnlyRootFilesystem: true`.
# CI cannot run a container engine: test/image/replay.ts replays these steps in a temporary directory and
# test/image/dockerfile.test.ts checks that this file and that replay stay the same. Change both together.

# Node.js 24, the current LTS line; CI runs the whole suite on exactly this version (.ci/run reads it from here).
ARG NODE_VERSION=24.22.3

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# The image's version label; test/image/dockerfile.test.ts holds this default equal to package.json's version.
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="kube-ledger" \
      org.opencontainers.image.description="Kubernetes scheduler extender with a node-allocatable ledger, DRA accounting and a freshness-gated cache" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/node:${NODE_VERSION}-bookworm-slim"
WORKDIR /app
ENV NODE_ENV=production
# The commit the image was built from, for kube_ledger_build_info (the version is read from package.json).
ENV KUBE_LEDGER_REVISION=${REVISION}
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config ./config
COPY bin ./bin
COPY LICENSE ./
# `kubectl exec deploy/kube-ledger -- kube-ledger explain NS/POD` asks the replica itself why a pod is pending.
RUN ln -s /app/bin/kube-ledger.js /usr/local/bin/kube-ledger
# 65532 is the conventional "nonroot" UID/GID; the Deployment's securityContext names the same numbers.
USER 65532:65532
# The Deployment sets the same value: a heap cap under its 1 GiB memory limit, the young generation at 2 x 32 MiB
# (half the scavenges of Node.js 20's 16 MiB, 3-15% less CPU a scheduled pod, ~30 MiB more RSS; Node.js 24 would grow it
# to 2 x 64 MiB: +75-100 MiB RSS at 150k pods, no faster).
ENV NODE_OPTIONS="--max-old-space-size=768 --max-semi-space-size=32"
EXPOSE 8888 8889
# --min-semi-space-size=32 starts the young generation at that size instead of growing it from 1 MiB during the first
# list: 150k pods load 9-13% faster (fewer scavenges), the same RSS. --no-memory-reducer: V8's memory reducer runs a
# memory-reducing full collection once the process idles after a burst, and the next burst then ran ~50% dearer for
# ~1500 pods while V8 optimized the request path again (a scheduler idles between waves of pending pods).
# --initial-old-space-size=128: no full collection while the old generation is under 128 MiB. The pod store keeps its
# columns outside the V8 heap, so a small cluster's heap is small and V8 collected it in full every few passes of the
# bench's scheduler loop (1.3-1.5x dearer rounds); a floor, not a growth factor, so a large cluster's heap grows as
# before. Node.js refuses these flags in NODE_OPTIONS, hence here.
ENTRYPOINT ["node", "--min-semi-space-size=32", "--initial-old-space-size=128", "--no-memory-reducer", "/app/dist/main.js"]
