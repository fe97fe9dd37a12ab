import { describeThemeMatrix } from "./theme-matrix";

describeThemeMatrix(false);
