# syntax=docker/dockerfile:1
# `npm run image` builds this as localhost/promptline:latest, with docker or podman (docs/operations.md).
# BASE_IMAGE is the base of both stages: the public Node.js 24 LTS image by default. Any Debian
# bookworm image with Node.js and npm where the public one has them (/usr/local) will do:
# scripts/localBase.mjs makes one from Debian's packages and the npm registry alone.
ARG BASE_IMAGE=docker.io/library/node:24-bookworm-slim

# Build stage: the native better-sqlite3 addon for the base's Node and libc, the TypeScript build,
# the web console (Vite), then the dev dependencies dropped.
FROM ${BASE_IMAGE} AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# better-sqlite3 is compiled here, against the base's own Node headers: never a prebuilt binary
# made for another libc, and no download from nodejs.org or GitHub.
ENV npm_config_build_from_source=true npm_config_nodedir=/usr/local npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
# The dependencies in a layer of their own, built again only when the lock file changes. Install
# scripts are off but for better-sqlite3's, the one dependency that has one. The ca_bundle secret is
# for a build that reaches the npm registry through a proxy re-signing TLS (docs/operations.md).
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=ca_bundle \
    if [ -s /run/secrets/ca_bundle ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca_bundle; fi; \
    npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY scripts ./scripts
COPY web ./web
COPY sdk/js ./sdk/js
# Then what the server does not run: dev dependencies, and of the rest what is only read by
# compilers and editors (better-sqlite3's sources and objects, type declarations, source maps).
RUN npm run build && npm prune --omit=dev \
  && find node_modules/better-sqlite3 -mindepth 1 -maxdepth 1 ! -name build ! -name lib ! -name package.json -exec rm -rf {} + \
  && find node_modules/better-sqlite3/build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} + \
  && find node_modules/better-sqlite3/build/Release -mindepth 1 ! -name better_sqlite3.node -exec rm -rf {} + \
  && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete

# The base without what only builds need (npm, Node's headers), flattened into one layer, so the
# image does not carry them in a layer underneath.
FROM ${BASE_IMAGE} AS runtime-base
RUN rm -rf /usr/local/include /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
    /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
  && groupadd --system promptline && useradd --system --gid promptline --home-dir /app --no-create-home promptline \
  && mkdir -p /data && chown promptline:promptline /data

# Runtime stage: only what runs, as a non-root user, the data on a volume.
FROM scratch
COPY --from=runtime-base / /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_ENV=production HOST=0.0.0.0 PORT=8000 PROMPTLINE_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/web ./dist/web
COPY package.json ./
COPY bin ./bin
# Last, straight from the sources: an image that differs only by its migrations shares every layer above.
COPY migrations ./migrations
USER promptline
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/server.js"]
