// Clerk's react-router-node template's Vite config, on the harness's port, with the emulator's proxy rule.
import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import { clerkProxy } from "./clerk-proxy";

export default defineConfig(() => ({
  plugins: [reactRouter(), tsconfigPaths({ projects: ["./tsconfig.json"] })],
  server: {
    host: "127.0.0.1",
    port: Number(process.env.PORT),
    strictPort: true,
    proxy: clerkProxy(process.env.CLERK_EMULATOR_URL!),
  },
}));
