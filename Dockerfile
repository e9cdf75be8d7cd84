# syntax=docker/dockerfile:1
# The docs publishing API: `docker build -t docs-publishing-api .` (README, "Deploying").
# Only the npm registry and Debian's packages are reached while building; better-sqlite3's
# prebuilt binary is downloaded from elsewhere, so it is compiled here (python3, make, g++
# against the image's own Node headers) when that download fails.

ARG NODE_VERSION=20.20.2

# ---- build: every dependency, Prisma clients generated and src/ compiled to dist/ (npm ci's postinstall)
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# node-gyp builds against the headers the image ships instead of downloading them.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY src ./src
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime: production dependencies, dist/ and the migrations; no compiler, no sources
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    DATABASE_URL=file:/app/data/app.db \
    STORAGE_DIR=/app/data/files
WORKDIR /app
# Code stays root's (the server cannot rewrite itself); only the data folder is the node user's.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma/migrations ./prisma/migrations
RUN mkdir -p /app/data/files && chown -R node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 8080
# /healthz: 200 when the database answers (HEALTH_TIMEOUT_MS); the slim image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is PID 1 and receives SIGTERM (docker stop) directly: dist/main.js handles SIGTERM and
# SIGINT. The server starts no child processes; `docker run --init` (compose: init: true) adds tini
# to reap any orphan all the same.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
