# One image for the three apps; each compose service picks its command.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts wait until the sources are there: `prepare` builds them.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json .swcrc nest-cli.json ./
COPY apps apps
COPY libs libs
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
USER node
EXPOSE 3000
# node itself, not npm, is the container process: only then does SIGTERM reach the app.
CMD ["node", "dist/apps/api/src/main.js"]
