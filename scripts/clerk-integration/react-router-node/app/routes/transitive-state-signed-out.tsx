// /transitive-state/sign-out/sign-in: where the sign-out goes.
export default function SignedOutPage() {
  return <p data-testid="page-name">sign-in</p>;
}
