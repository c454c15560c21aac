# syntax=docker/dockerfile:1
# Build stage: native better-sqlite3 addon, TypeScript build, the web console (Vite), then drop dev dependencies.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY scripts ./scripts
COPY bin ./bin
COPY migrations ./migrations
COPY web ./web
RUN npm ci && npm prune --omit=dev

# Runtime stage: only what runs, as a non-root user, data on a volume.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 PROMPTLINE_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/package.json ./package.json
RUN groupadd --system promptline && useradd --system --gid promptline --home /app promptline \
  && mkdir -p /data && chown promptline:promptline /data
USER promptline
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/server.js"]
