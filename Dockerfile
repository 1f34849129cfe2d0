# tlsbench built from this checkout and run from a small image, in one step:
#
#   docker build -t tlsbench .
#   docker run --rm tlsbench                          # tlsbench run: the built-in server, measured
#   docker run --rm tlsbench run --quick --tls 1.3
#   docker run --rm tlsbench version
#   docker build --build-arg VERSION=v1.2.0 -t tlsbench:1.2.0 .
#
# The program is static (no cgo) with its paths trimmed, as the release
# binaries are (scripts/release.sh). Its version comes from the checkout:
# the git repository is part of the build context, so the go command stamps
# the commit (a plain clone; a git worktree's repository lies outside the
# context and the version is then "devel"); VERSION, when given, is the
# version it prints and records instead.
#
# Kernel TLS (--ktls) is the host's kernel's: a container has it when the
# host has loaded the tls module (modprobe tls on the host).

FROM golang:1.26-bookworm AS build
WORKDIR /src
# The modules first, in a layer of their own that a change of the source
# does not rebuild.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=auto -ldflags "-X github.com/tlsbench/tlsbench/results.Version=${VERSION}" -o bin/tlsbench ./cmd/tlsbench

# The static program alone (with CA certificates, /tmp and an unprivileged
# user): tlsbench run starts its built-in server as a child of itself.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/bin/tlsbench /tlsbench
ENTRYPOINT ["/tlsbench"]
CMD ["run"]
