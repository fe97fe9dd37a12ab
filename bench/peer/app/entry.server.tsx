export { default } from "../../baseline/app/entry.server";
