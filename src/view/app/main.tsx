import { render } from "preact";
import { takeTokenFromLocation } from "./api-client.ts";
import { App } from "./app.tsx";
import { applyStoredTheme } from "./theme.ts";
import "./styles.css";

applyStoredTheme();
takeTokenFromLocation();
const root = document.getElementById("app");
if (root === null) throw new Error("index.html has no #app element.");
render(<App />, root);
