// /transitive-state/user-button/switched: where the account switch goes.
export default function SwitchedPage() {
  return <p data-testid="page-name">switched</p>;
}
