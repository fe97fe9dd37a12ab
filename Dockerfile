# syntax=docker/dockerfile:1
# Teamwork's production image: built in one stage, run from a pruned copy as
# an unprivileged user. See docs/deployment.md for the variables it needs.

# Node 26, the current LTS line, at the version `npm test` runs the built
# server on (scripts/pinned-node.mjs; a unit test keeps the two the same).
FROM node:26.10.0-bookworm-slim AS build
# Production builds of React and Remix; the dev dependencies are still needed to build.
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace's one package (the Clerk emulator): npm ci links it. The build
# bundles it into build/server.js, and the prune drops it as a dev dependency.
COPY packages/clerk-emulator/package.json ./packages/clerk-emulator/
# npm ci applies them (patch-package, postinstall).
COPY patches ./patches
RUN npm ci --include=dev --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:26.10.0-bookworm-slim
# The heap V8 may keep (docs/deployment.md, "Memory"), as npm start sets it:
# uncapped, the old space grows 4x past what survives (350-390 MB of RSS under
# load); capped at 768 MB, 1.8x (about 220 MB), at about 10% more CPU. Override
# with NODE_OPTIONS. And two malloc arenas instead of up to eight per core:
# 15-45 MB less RSS under load. Override with MALLOC_ARENA_MAX.
ENV NODE_ENV=production PORT=3000 MALLOC_ARENA_MAX=2 NODE_OPTIONS="--max-old-space-size=768 --max-semi-space-size=16"
# Without Clerk's keys the server would run local mode (the bundled emulator
# and its demo accounts, loopback only): the image refuses to start instead,
# naming the missing key, unless run with -e LOCAL_MODE=allow.
ENV LOCAL_MODE=refuse
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/build ./build
COPY --from=build --chown=node:node /app/public ./public
# The image's own unprivileged user (uid 1000).
USER node
EXPOSE 3000
# Liveness only: readiness (/readyz) is for the load balancer or orchestrator.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1's only process and receives SIGTERM itself (graceful shutdown).
CMD ["node", "build/server.js"]
