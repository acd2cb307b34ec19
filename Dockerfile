# syntax=docker/dockerfile:1
# Node.js 26, the newest LTS line (Active LTS since October 2026); CI runs the whole suite on it (scripts/node.sh).
# Pinned to 26.12.1, the release scripts/node.sh installs: V8's JSON.parse up to 26.10.0 reads an object key by what an
# earlier text held (docs/operating.md, "JSON parsing and the Node release").
# CI builds this file as it is with buildah, runs the image and checks it: `npm run image` (scripts/image.sh, which
# makes node:26.12.1-slim locally where it cannot be pulled), then writes build/metaops-<version>.oci.tar.
# Build: compile the TypeScript with every dependency installed.
FROM node:26.12.1-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY lib ./lib
COPY hooks ./hooks
COPY main ./main
RUN npm run build

# Production dependencies only.
FROM node:26.12.1-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

# Runtime: compiled output and production dependencies, as a non-root user.
FROM node:26.12.1-slim
ENV NODE_ENV=production PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["node", "dist/main/server.js"]
