// Clerk's react-vite template's Vite config, on the harness's port, with the emulator's proxy rule.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { clerkProxy } from "./clerk-proxy";

export default defineConfig({
  plugins: [react()],
  server: {
    host: "127.0.0.1",
    port: Number(process.env.PORT),
    strictPort: true,
    proxy: clerkProxy(process.env.CLERK_EMULATOR_URL!),
  },
});
