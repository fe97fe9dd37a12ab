import { describeThemeMatrix } from "./theme-matrix";

describeThemeMatrix(true);
