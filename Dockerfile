# syntax=docker/dockerfile:1
# The agent-harness container image (docs/ci.md): a static binary in an
# otherwise empty image, running as a non-root user, entrypoint
# agent-harness.
#
#   docker build -t agent-harness:dev .                                  # the checkout
#   docker build --build-arg VERSION=v0.1.0 --build-arg REVISION=<commit> \
#     --build-arg TIME=<commit time> -t agent-harness:0.1.0 .           # a release (release.yml)
#
# The build stage uses the env, flags and ldflags of .goreleaser.yaml, so
# the image's binary is the release archive's (internal/releasetest checks
# that the two files agree).
# The build stage runs on the build machine and cross-compiles for the
# target platform (docker buildx --platform linux/amd64,linux/arm64).
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY . .
ARG VERSION=""
ARG REVISION=""
ARG TIME=""
ARG TARGETOS
ARG TARGETARCH
# The module and build caches are BuildKit cache mounts: kept between
# builds on one machine, never part of the image.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags="-s -w -X main.releaseVersion=$VERSION -X main.releaseRevision=$REVISION -X main.releaseTime=$TIME" -o /out/agent-harness ./cmd/agent-harness
RUN mkdir -p /out/home/agent /out/tmp

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build --chown=65532:65532 /out/home/agent /home/agent
COPY --from=build --chmod=1777 /out/tmp /tmp
COPY --from=build /out/agent-harness /usr/local/bin/agent-harness
ENV HOME=/home/agent
USER 65532:65532
WORKDIR /home/agent
ENTRYPOINT ["/usr/local/bin/agent-harness"]
